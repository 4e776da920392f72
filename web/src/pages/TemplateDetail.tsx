import { useEffect, useState } from 'preact/hooks';
import { api, type SchemaField, type Template, type TemplateSchema } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { PdfPages } from '../components/PdfPages.js';
import { TemplateActions } from '../components/TemplateActions.js';
import { formatBytes, formatDate, plural } from '../format.js';
import { fieldBoxes, openPdf, type Box, type PDFDocumentProxy } from '../pdf.js';
import { BASE, linkClick, navigate } from '../router.js';
import { BoxEditor } from './template/BoxEditor.js';
import { TryIt } from './TryIt.js';

export function TemplatePage({ id }: { id: string }) {
  const [template, setTemplate] = useState<Template | null>(null);
  const [schema, setSchema] = useState<TemplateSchema | null>(null);
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [boxes, setBoxes] = useState<Box[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [active, setActive] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>('fields');
  const [preview, setPreview] = useState<PDFDocumentProxy | null>(null);

  // (re)load everything when the template's file is replaced
  const [reload, setReload] = useState(0);
  useEffect(() => {
    let cancelled = false;
    let opened: PDFDocumentProxy | null = null;
    (async () => {
      const [t, s, file] = await Promise.all([
        api.get<{ data: Template }>(`/templates/${encodeURIComponent(id)}`),
        api.get<{ data: TemplateSchema }>(`/templates/${encodeURIComponent(id)}/schema`),
        api.bytes('GET', `/templates/${encodeURIComponent(id)}/file`),
      ]);
      opened = await openPdf(file.bytes);
      const b = await fieldBoxes(opened, s.data.schema.fields);
      if (cancelled) return;
      setTemplate(t.data);
      setSchema(s.data);
      setDoc(opened);
      setBoxes(b);
      setPreview(null);
    })().catch((err) => !cancelled && setError(err));
    return () => {
      cancelled = true;
      opened?.destroy();
    };
  }, [id, reload]);

  if (error) {
    return (
      <section>
        <h1>Template</h1>
        <ErrorText error={error} />
        <a href={`${BASE}/templates`} onClick={linkClick}>
          Back to templates
        </a>
      </section>
    );
  }
  if (!template || !schema || !doc) return <p role="status">Loading template…</p>;
  const fields = schema.schema.fields;

  const pick = (field: string) => {
    setActive(field);
    const el = document.querySelector<HTMLElement>(`[data-field-row="${CSS.escape(field)}"]`);
    el?.scrollIntoView({ block: 'nearest' });
    el?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  };

  return (
    <section class="template-page">
      <p class="crumbs">
        <a href={`${BASE}/templates`} onClick={linkClick}>
          Templates
        </a>{' '}
        /
      </p>
      <div class="title-row">
        <h1>
          {template.name} {template.isFrozen && <span class="badge frozen">frozen</span>}
        </h1>
        <TemplateActions
          template={template}
          onChanged={(t) => {
            if (t.version !== template.version) setReload((n) => n + 1);
            setTemplate(t);
          }}
          onDeleted={() => navigate(`${BASE}/templates`, true)}
        />
      </div>
      <p class="muted">
        {template.fileName} · {formatBytes(template.fileSize)} · version {template.version} ·{' '}
        {plural(fields.length, 'field')} on {plural(schema.schema.pageCount, 'page')} · updated{' '}
        {formatDate(template.updatedAt)} · <code>{template.id}</code>
      </p>
      {schema.schema.removedFromOutput.length > 0 && (
        <details class="notice">
          <summary>
            Rendered PDFs leave out {plural(schema.schema.removedFromOutput.length, 'feature')} of this file
          </summary>
          <ul>
            {schema.schema.removedFromOutput.map((r) => (
              <li key={r.feature}>
                <strong>{r.feature}</strong>: {r.description}
              </li>
            ))}
          </ul>
        </details>
      )}

      <div class="tabs" role="tablist" aria-label="Template views">
        <TabButton id="fields" current={tab} onSelect={setTab}>
          Fields
        </TabButton>
        <TabButton id="try" current={tab} onSelect={setTab}>
          Try it
        </TabButton>
        <TabButton id="edit" current={tab} onSelect={setTab}>
          Edit on page
        </TabButton>
      </div>

      {tab === 'edit' && (
        <div role="tabpanel" id="panel-edit" aria-labelledby="tab-edit">
          <BoxEditor
            template={template}
            doc={doc}
            fields={fields}
            boxes={boxes}
            onSaved={() => setReload((n) => n + 1)}
          />
        </div>
      )}
      <div class={`split split-${tab}`} hidden={tab === 'edit'}>
        <div class="split-doc" id="document">
          {tab === 'try' && preview ? (
            <PdfPages
              doc={preview}
              boxes={boxes}
              active={active}
              onHover={setActive}
              onPick={pick}
              textLayer
              label="Live preview of the filled PDF"
            />
          ) : (
            <PdfPages
              doc={doc}
              boxes={boxes}
              active={active}
              onHover={setActive}
              onPick={pick}
              label="Template pages with their fields"
            />
          )}
        </div>
        <div
          class="split-side"
          role="tabpanel"
          id={`panel-${tab === 'edit' ? 'hidden' : tab}`}
          aria-labelledby={`tab-${tab}`}
        >
          {tab === 'fields' ? (
            <FieldList
              fields={fields}
              boxes={boxes}
              active={active}
              onActive={setActive}
              onTry={() => {
                setTab('try');
                document.getElementById('tab-try')?.focus();
              }}
            />
          ) : (
            <TryIt template={template} fields={fields} active={active} onActive={setActive} onPreview={setPreview} />
          )}
        </div>
      </div>
    </section>
  );
}

type Tab = 'fields' | 'try' | 'edit';
const TABS: Tab[] = ['fields', 'try', 'edit'];

function TabButton(props: { id: Tab; current: string; onSelect: (id: Tab) => void; children: string }) {
  const selected = props.current === props.id;
  return (
    <button
      type="button"
      role="tab"
      id={`tab-${props.id}`}
      aria-selected={selected}
      aria-controls={`panel-${props.id}`}
      tabIndex={selected ? 0 : -1}
      class={selected ? 'tab selected' : 'tab'}
      onClick={() => props.onSelect(props.id)}
      onKeyDown={(e) => {
        if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
          const step = e.key === 'ArrowRight' ? 1 : TABS.length - 1;
          const next = TABS[(TABS.indexOf(props.id) + step) % TABS.length];
          props.onSelect(next);
          document.getElementById(`tab-${next}`)?.focus();
        }
      }}
    >
      {props.children}
    </button>
  );
}

function describeField(f: SchemaField): string {
  const parts: string[] = [];
  if (f.maxLength !== undefined) parts.push(`max ${f.maxLength} characters`);
  if (f.options) parts.push(`one of: ${f.options.join(', ')}`);
  if (f.pdfMeta.readOnly) parts.push('read-only (not filled)');
  return parts.join(' · ');
}

function FieldList(props: {
  fields: SchemaField[];
  boxes: Box[];
  active: string | null;
  onActive: (f: string | null) => void;
  onTry: () => void;
}) {
  return (
    <div>
      <div class="title-row">
        <h2 class="h3">Schema</h2>
        <button type="button" class="primary" onClick={props.onTry}>
          Try it with values →
        </button>
      </div>
      <p class="hint">
        The keys to send in render <code>data</code>. Hover or focus a field to find it on the page.
      </p>
      <ul class="field-list">
        {props.fields.map((f, i) => {
          const count = props.boxes.filter((b) => b.field === f.name).length;
          return (
            <li
              key={f.name}
              data-field-row={f.name}
              class={props.active === f.name ? 'active' : undefined}
              onMouseEnter={() => props.onActive(f.name)}
              onMouseLeave={() => props.onActive(null)}
            >
              <button
                type="button"
                class="field-row"
                onFocus={() => props.onActive(f.name)}
                onBlur={() => props.onActive(null)}
                aria-describedby={`meta-${i}`}
              >
                <code>{f.name}</code>
                <span class={`type type-${f.type}`}>{f.type}</span>
                {f.required && <span class="badge required">required</span>}
              </button>
              <div class="muted small" id={`meta-${i}`}>
                {f.label && <div>{f.label}</div>}
                page {f.pdfMeta.page}
                {count > 1 && ` · ${count} widgets`}
                {count === 0 && ' · no box found'}
                {f.pdfMeta.originalName !== f.name && (
                  <>
                    {' '}
                    · PDF name <code>{f.pdfMeta.originalName}</code>
                  </>
                )}
                {describeField(f) && <div>{describeField(f)}</div>}
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
