import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Render, type SchemaField, type Template } from '../api.js';
import { ErrorText } from '../components/Alert.js';
import { formatBytes } from '../format.js';
import { openPdf, type PDFDocumentProxy } from '../pdf.js';
import { BASE, linkClick } from '../router.js';

/** Locales and time zones offered in Try it; the API accepts any BCP 47 tag and IANA zone. */
const LOCALES = [
  'fr-FR',
  'en-US',
  'en-GB',
  'de-DE',
  'es-ES',
  'it-IT',
  'nl-NL',
  'pt-BR',
  'ja-JP',
  'zh-CN',
  'ar-EG',
  'hi-IN',
];
const TIME_ZONES = [
  'Europe/Paris',
  'UTC',
  'Europe/London',
  'America/New_York',
  'America/Los_Angeles',
  'Asia/Tokyo',
  'Australia/Sydney',
];

/** How long typing must pause before a preview is asked for. */
const DEBOUNCE_MS = 400;

type Raw = string | boolean;
interface FieldProblem {
  error?: string;
  warnings: string[];
}

/**
 * The render `data` from what was typed: only fields the user touched; numbers as JSON numbers when
 * they read as one, otherwise sent as typed so the service answers its own VALIDATION_ERROR.
 */
function toData(fields: SchemaField[], raw: Record<string, Raw>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const f of fields) {
    if (!(f.name in raw)) continue;
    const v = raw[f.name];
    if (typeof v === 'boolean') data[f.name] = v;
    else if (v === '') continue;
    else if (f.type === 'number') data[f.name] = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v) ? Number(v) : v;
    else data[f.name] = v;
  }
  return data;
}

/** Which field a message is about: the first field name (or PDF name) it quotes. */
function fieldOf(fields: SchemaField[], text: string): string | undefined {
  return fields.find((f) => text.includes(`"${f.name}"`) || text.includes(`"${f.pdfMeta.originalName}"`))?.name;
}

export function TryIt(props: {
  template: Template;
  fields: SchemaField[];
  active: string | null;
  onActive: (f: string | null) => void;
  onPreview: (doc: PDFDocumentProxy | null) => void;
}) {
  const { fields, template } = props;
  const [raw, setRaw] = useState<Record<string, Raw>>({});
  const [strict, setStrict] = useState(false);
  const [flatten, setFlatten] = useState(true);
  // '' leaves the choice to the template, else the server (fr-FR / Europe/Paris unless configured)
  const [locale, setLocale] = useState('');
  const [timezone, setTimezone] = useState('');
  const [status, setStatus] = useState<'idle' | 'waiting' | 'loading' | 'ready' | 'invalid' | 'failed'>('idle');
  const [problems, setProblems] = useState<Record<string, FieldProblem>>({});
  const [general, setGeneral] = useState<{ error: unknown; warnings: string[] }>({ error: null, warnings: [] });
  const [rendering, setRendering] = useState(false);
  const [rendered, setRendered] = useState<Render | null>(null);
  const [renderError, setRenderError] = useState<unknown>(null);
  /** the request body the current status is about: typing makes the status stale at once */
  const [settled, setSettled] = useState<string | null>(null);
  const seq = useRef(0);
  const shown = useRef<PDFDocumentProxy | null>(null);

  const data = toData(fields, raw);
  const options = { strict, flatten, ...(locale ? { locale } : {}), ...(timezone ? { timezone } : {}) };
  const body = JSON.stringify({ data, options });

  // Live preview: debounced; only the latest answer is shown, older requests are cancelled.
  useEffect(() => {
    const mine = ++seq.current;
    const abort = new AbortController();
    const timer = setTimeout(async () => {
      setStatus('loading');
      const settle = (st: typeof status) => {
        setStatus(st);
        setSettled(body);
      };
      try {
        const res = await api.bytes('POST', `/templates/${template.id}/preview`, { data, options }, abort.signal);
        const doc = await openPdf(res.bytes);
        if (mine !== seq.current) return void doc.destroy();
        const warnings = JSON.parse(res.headers.get('Formcast-Warnings') ?? '[]') as string[];
        sortProblems(undefined, warnings);
        shown.current?.destroy();
        shown.current = doc;
        props.onPreview(doc);
        settle('ready');
      } catch (err) {
        if ((err as Error).name === 'AbortError' || mine !== seq.current) return;
        if (err instanceof ApiError && err.code === 'VALIDATION_ERROR') {
          sortProblems(err, []);
          settle('invalid');
        } else {
          setProblems({});
          setGeneral({ error: err, warnings: [] });
          settle('failed');
        }
      }
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [body]);
  useEffect(
    () => () => {
      props.onPreview(null);
      shown.current?.destroy();
    },
    [],
  );

  /** Put each error and warning next to its field; the rest above the form. */
  const sortProblems = (err: ApiError | undefined, warnings: string[]) => {
    const next: Record<string, FieldProblem> = {};
    const rest: string[] = [];
    let generalError: unknown = null;
    if (err) {
      const field = fields.find((f) => f.name === err.details?.field || f.pdfMeta.originalName === err.details?.field);
      if (field) next[field.name] = { error: err.message, warnings: [] };
      else generalError = err;
    }
    for (const w of warnings) {
      const name = fieldOf(fields, w);
      if (name) (next[name] ??= { warnings: [] }).warnings.push(w);
      else rest.push(w);
    }
    setProblems(next);
    setGeneral({ error: generalError, warnings: rest });
  };

  const set = (name: string, v: Raw) => {
    setRendered(null);
    setRaw((r) => ({ ...r, [name]: v }));
  };

  const renderNow = async () => {
    setRendering(true);
    setRenderError(null);
    setRendered(null);
    try {
      const res = await api.send<{ data: Render }>('POST', '/renders', {
        templateId: template.id,
        data,
        options,
      });
      setRendered(res.data);
    } catch (err) {
      setRenderError(err);
      if (err instanceof ApiError && err.code === 'VALIDATION_ERROR') sortProblems(err, []);
    } finally {
      setRendering(false);
    }
  };

  const shownStatus = settled === body ? status : status === 'loading' ? 'loading' : 'waiting';
  const statusText = {
    idle: '',
    waiting: 'Preview: waiting for you to stop typing…',
    loading: 'Preview: rendering…',
    ready: 'Preview up to date (watermarked PREVIEW; not counted in your usage).',
    invalid: 'Preview paused: fix the highlighted field.',
    failed: 'Preview failed.',
  }[shownStatus];

  return (
    <form
      class="try-it"
      onSubmit={(e) => {
        e.preventDefault();
        renderNow();
      }}
      aria-describedby="try-status"
    >
      <h2 class="h3">Try it</h2>
      <p class="hint">
        Type values: the preview of the filled PDF follows as you type. Empty fields are not sent. Render to get the
        real PDF (counted in your monthly usage).
      </p>
      <p id="try-status" class={`status status-${shownStatus}`} role="status" aria-live="polite">
        {statusText}{' '}
        <button
          type="button"
          class="link narrow-only"
          onClick={() => document.getElementById('document')?.scrollIntoView({ behavior: 'smooth' })}
        >
          See the preview
        </button>
      </p>
      <ErrorText error={general.error} />
      {general.warnings.length > 0 && (
        <ul class="warnings" aria-label="Warnings">
          {general.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      <div class="options">
        <label>
          <input type="checkbox" checked={strict} onChange={(e) => setStrict((e.target as HTMLInputElement).checked)} />{' '}
          Strict (too long or unknown values are errors)
        </label>
        <label>
          <input
            type="checkbox"
            checked={flatten}
            onChange={(e) => setFlatten((e.target as HTMLInputElement).checked)}
          />{' '}
          Flatten (fields no longer editable)
        </label>
        <label>
          Locale{' '}
          <select value={locale} onChange={(e) => setLocale((e.target as HTMLSelectElement).value)}>
            <option value="">
              {template.locale ? `Template's (${template.locale})` : 'Default (fr-FR unless set)'}
            </option>
            {LOCALES.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label>
          Time zone{' '}
          <select value={timezone} onChange={(e) => setTimezone((e.target as HTMLSelectElement).value)}>
            <option value="">
              {template.timezone ? `Template's (${template.timezone})` : 'Default (Europe/Paris unless set)'}
            </option>
            {TIME_ZONES.map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ul class="field-list inputs">
        {fields.map((f, i) => (
          <FieldInput
            key={f.name}
            field={f}
            index={i}
            value={raw[f.name]}
            problem={problems[f.name]}
            active={props.active === f.name}
            onActive={props.onActive}
            onChange={(v) => set(f.name, v)}
          />
        ))}
      </ul>
      <div class="render-bar">
        <button type="submit" class="primary" disabled={rendering}>
          {rendering ? 'Rendering…' : 'Render PDF'}
        </button>
        {rendered && (
          <span role="status">
            {/* null only for an async render (pending), which the dashboard never asks for */}
            <a class="button" href={rendered.downloadUrl ?? undefined} download>
              Download PDF
            </a>{' '}
            <span class="muted small">
              {formatBytes(rendered.fileSize)} in {rendered.durationMs} ms · link valid{' '}
              {Math.round(rendered.expiresIn / 60)} min · also in{' '}
              <a href={`${BASE}/renders`} onClick={linkClick}>
                Renders
              </a>
            </span>
          </span>
        )}
        {rendered && rendered.warnings.length > 0 && (
          <ul class="warnings" aria-label="Render warnings">
            {rendered.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        )}
      </div>
      <ErrorText error={renderError} />
      <details class="snippet">
        <summary>The same request with curl</summary>
        <pre>
          <code>{`curl -s -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
  ${location.origin}/v1/renders -d '${JSON.stringify({ templateId: template.id, data, options }, null, 2).replace(/'/g, "'\\''")}'`}</code>
        </pre>
      </details>
    </form>
  );
}

function FieldInput(props: {
  field: SchemaField;
  index: number;
  value: Raw | undefined;
  problem: FieldProblem | undefined;
  active: boolean;
  onActive: (f: string | null) => void;
  onChange: (v: Raw) => void;
}) {
  const { field: f, index, problem } = props;
  const id = `input-${index}`;
  const errorId = `input-${index}-error`;
  const hintId = `input-${index}-hint`;
  const hints: string[] = [f.type];
  if (f.required) hints.push('required');
  if (f.maxLength !== undefined) hints.push(`max ${f.maxLength} characters`);
  if (f.type === 'date') hints.push('e.g. 2026-04-01');
  if (f.type === 'signature') hints.push('text, or a data: URL of a PNG or JPEG');
  if (f.pdfMeta.readOnly) hints.push('read-only: not filled');
  const common = {
    id,
    disabled: f.pdfMeta.readOnly,
    'aria-invalid': problem?.error ? true : undefined,
    'aria-describedby': `${hintId} ${errorId}`,
    onFocus: () => props.onActive(f.name),
    onBlur: () => props.onActive(null),
  };
  const text = typeof props.value === 'string' ? props.value : '';

  let control;
  if (f.type === 'checkbox' && !f.options) {
    control = (
      <input
        type="checkbox"
        {...common}
        checked={props.value === true}
        onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)}
      />
    );
  } else if (f.options) {
    control = (
      <select {...common} value={text} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
        <option value="">(not set)</option>
        {f.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else if (f.type === 'signature') {
    control = (
      <textarea
        {...common}
        rows={2}
        value={text}
        onInput={(e) => props.onChange((e.target as HTMLTextAreaElement).value)}
      />
    );
  } else {
    control = (
      <input
        type="text"
        inputMode={f.type === 'number' ? 'decimal' : undefined}
        autocomplete="off"
        {...common}
        value={text}
        onInput={(e) => props.onChange((e.target as HTMLInputElement).value)}
      />
    );
  }

  return (
    <li
      data-field-row={f.name}
      class={`${props.active ? 'active' : ''}${problem?.error ? ' invalid' : ''}`}
      onMouseEnter={() => props.onActive(f.name)}
      onMouseLeave={() => props.onActive(null)}
    >
      <label for={id}>{f.name}</label>
      {control}
      <div id={hintId} class="muted small">
        {f.label && <span>{f.label} · </span>}
        {hints.join(' · ')}
      </div>
      <div id={errorId} class="field-problems">
        {problem?.error && (
          <p class="error" data-testid="field-error">
            {problem.error}
          </p>
        )}
        {problem?.warnings.map((w) => (
          <p key={w} class="warning">
            {w}
          </p>
        ))}
      </div>
    </li>
  );
}
