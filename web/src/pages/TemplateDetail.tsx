import { useEffect, useState } from 'preact/hooks';
import { api, type Template, type TemplateSchema } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { PdfPages } from '../components/PdfPages.js';
import { TemplateActions } from '../components/TemplateActions.js';
import { formatBytes, formatDate, plural } from '../format.js';
import { fieldBoxes, openPdf, type Box, type PDFDocumentProxy } from '../pdf.js';
import { BASE, linkClick, navigate } from '../router.js';
import { BoxEditor } from './template/BoxEditor.js';
import { DetectButton } from './template/DetectButton.js';
import { endReview, loadReview, type Review } from './template/detection-review.js';
import { FieldsTable } from './template/FieldsTable.js';
import { VersionHistory } from './template/VersionHistory.js';
import { TryIt } from './TryIt.js';

type Tab = 'fields' | 'try' | 'history' | 'edit';
const TABS: Tab[] = ['fields', 'try', 'history', 'edit'];

export function TemplatePage({ id }: { id: string }) {
  const [template, setTemplate] = useState<Template | null>(null);
  const [schema, setSchema] = useState<TemplateSchema | null>(null);
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [boxes, setBoxes] = useState<Box[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [active, setActive] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>('fields');
  const [preview, setPreview] = useState<PDFDocumentProxy | null>(null);
  const [review, setReview] = useState<Review | null>(null);

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
      // detections to review for this version open the editor on them
      const open = loadReview(id, t.data.version);
      setReview(open);
      if (open) setTab('edit');
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

  // a save answers the new schema: redraw the boxes under the new keys without reloading the file
  const schemaSaved = async (next: TemplateSchema) => {
    setBoxes(await fieldBoxes(doc, next.schema.fields));
    setSchema(next);
    setActive(null);
    setTemplate((await api.get<{ data: Template }>(`/templates/${encodeURIComponent(id)}`)).data);
  };

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
        <DetectButton template={template} onDetected={() => setReload((n) => n + 1)} />
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
        <TabButton id="history" current={tab} onSelect={setTab}>
          History
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
            review={review}
            onReviewEnd={() => {
              endReview(template.id);
              setReview(null);
            }}
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
            <FieldsTable
              templateId={template.id}
              fields={fields}
              boxes={boxes}
              active={active}
              frozen={template.isFrozen}
              onActive={setActive}
              onSchema={(next) => void schemaSaved(next).catch(setError)}
              onTry={() => {
                setTab('try');
                document.getElementById('tab-try')?.focus();
              }}
            />
          ) : tab === 'history' ? (
            <VersionHistory templateId={template.id} version={template.version} fields={fields} />
          ) : tab === 'try' ? (
            <TryIt template={template} fields={fields} active={active} onActive={setActive} onPreview={setPreview} />
          ) : null}
        </div>
      </div>
    </section>
  );
}

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
