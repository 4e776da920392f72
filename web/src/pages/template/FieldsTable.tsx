import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, type SchemaField, type TemplateSchema } from '../../api.js';
import { ErrorText } from '../../components/Alert.js';
import { plural } from '../../format.js';
import type { Box } from '../../pdf.js';
import { FieldRow } from './FieldRow.js';
import { buildPatch, draftOf, errorsByRow, type Draft, type FieldsPatch } from './FieldsTable-edits.js';
import { FieldsFilterBar, SuggestedNames } from './FieldsTable-toolbar.js';
import { filterFields, NO_FILTERS, searchText, suggestedRenames, type FieldFilters } from './field-filters.js';

/**
 * Rows drawn at a time: a long form grows by this many as the table's end nears the screen. Drawing all 713
 * rows of the Canada form costs about a second on a busy 2-core machine (style and layout, not script), so
 * a keystroke that brings them all back must not; find-in-page sees only drawn rows, the search box sees all.
 */
const CHUNK = 100;

interface Props {
  templateId: string;
  fields: SchemaField[];
  boxes: Box[];
  /** the field highlighted on the page images */
  active: string | null;
  frozen: boolean;
  onActive: (key: string | null) => void;
  /** the schema a save answered: the page shows the new version */
  onSchema: (schema: TemplateSchema) => void;
  onTry: () => void;
}

/**
 * The template's fields as a table: search and filters, edits of key / description / default / required
 * saved in one PATCH (all or nothing, each refusal shown at its row), and the suggested names in one go.
 */
export function FieldsTable(props: Props) {
  const { fields, templateId } = props;
  const [filters, setFiltersState] = useState<FieldFilters>(NO_FILTERS);
  const [limit, setLimit] = useState(CHUNK);
  const setFilters = useCallback((f: FieldFilters) => {
    setFiltersState(f);
    setLimit(CHUNK);
  }, []);
  const [drafts, setDrafts] = useState<Map<string, Draft>>(() => new Map());
  const [errors, setErrors] = useState<Map<string, string[]>>(() => new Map());
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  // the row last clicked keeps its box lit when the pointer leaves the row
  const selected = useRef<string | null>(null);
  const readOnly = props.frozen;

  // a new schema (a save, a new file) starts from what it says: drafts of the old one would mislead
  useEffect(() => {
    setDrafts(new Map());
    setErrors(new Map());
  }, [fields]);
  const texts = useMemo(() => fields.map(searchText), [fields]);
  const passing = useMemo(() => filterFields(fields, texts, filters), [fields, texts, filters]);
  // a row being edited stays in view: renaming it must not make it vanish from a search for its key
  const shown = useMemo(() => {
    if (drafts.size === 0) return passing;
    const pass = new Set(passing);
    return fields.filter((f) => pass.has(f) || drafts.has(f.pdfMeta.originalName));
  }, [fields, passing, drafts]);
  const more = useCallback(() => setLimit((n) => n + CHUNK), []);
  // a box hovered or picked on the page brings its row into the drawn part of the table
  const activeIndex = props.active === null ? -1 : shown.findIndex((f) => f.name === props.active);
  useEffect(() => {
    if (activeIndex >= limit) setLimit(activeIndex + CHUNK / 2);
  }, [activeIndex, limit]);
  const boxCounts = useMemo(() => {
    const counts = new Map<string, number>();
    for (const b of props.boxes) counts.set(b.field, (counts.get(b.field) ?? 0) + 1);
    return counts;
  }, [props.boxes]);
  const renames = useMemo(() => suggestedRenames(fields), [fields]);

  const { onActive } = props;
  const onHover = useCallback((key: string | null) => onActive(key ?? selected.current), [onActive]);
  const onSelect = useCallback(
    (key: string) => {
      selected.current = key;
      onActive(key);
      // beside the table (wide screens) the page scrolls to the box; stacked, the table keeps its place
      if (window.matchMedia('(min-width: 901px)').matches) {
        document
          .querySelector(`.field-box[data-field="${CSS.escape(key)}"]`)
          ?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
      }
    },
    [onActive],
  );
  const onEdit = useCallback((f: SchemaField) => {
    setDrafts((d) => new Map(d).set(f.pdfMeta.originalName, draftOf(f)));
    setNotice('');
  }, []);
  const onDraft = useCallback((original: string, draft: Draft) => {
    setDrafts((d) => new Map(d).set(original, draft));
  }, []);
  const onDiscard = useCallback((original: string) => {
    setDrafts((d) => {
      const next = new Map(d);
      next.delete(original);
      return next;
    });
    setErrors((e) => {
      const next = new Map(e);
      next.delete(original);
      return next;
    });
  }, []);

  const send = async (body: FieldsPatch, done: (schema: TemplateSchema) => string) => {
    setSaving(true);
    setFailure(null);
    setNotice('');
    try {
      const res = await api.send<{ data: TemplateSchema }>(
        'PATCH',
        `/templates/${encodeURIComponent(templateId)}/fields`,
        body,
      );
      setDrafts(new Map());
      setErrors(new Map());
      selected.current = null;
      setNotice(done(res.data));
      props.onSchema(res.data);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'VALIDATION_ERROR') {
        const byRow = errorsByRow(err.details, Object.keys(body.fields ?? {}), err.message);
        const general = byRow.get('');
        byRow.delete('');
        setErrors(byRow);
        const count = [...byRow.values()].reduce((n, list) => n + list.length, 0);
        setFailure(
          new Error(
            `Nothing was saved: ${plural(count + (general?.length ?? 0), 'problem')}${count ? ', shown at their rows' : ''}` +
              (general ? `. ${general.join(' ')}` : ''),
          ),
        );
      } else setFailure(err);
    } finally {
      setSaving(false);
    }
  };

  // Rows get one stable callback (memoised rows): Enter in any editor saves the drafts as they are then.
  const saveRef = useRef(() => {});
  saveRef.current = () => {
    const body = buildPatch(fields, drafts);
    if (!body) {
      setDrafts(new Map());
      setErrors(new Map());
      setNotice('Nothing to save: the edits change nothing');
      return;
    }
    const count = Object.keys(body.fields ?? {}).length;
    void send(body, (s) => `Saved ${plural(count, 'field')}: version ${s.version}`);
  };
  const onSave = useCallback(() => saveRef.current(), []);

  const useSuggested = () =>
    send({ useSuggestedNames: true }, (s) => {
      const before = new Map(fields.map((f) => [f.pdfMeta.originalName, f.name]));
      const changed = s.schema.fields.filter((f) => before.get(f.pdfMeta.originalName) !== f.name).length;
      return `${plural(changed, 'key')} renamed to the suggested names: version ${s.version}`;
    });

  return (
    <div class="fields-table">
      <div class="title-row">
        <h2 class="h3">Fields</h2>
        <button type="button" class="primary" onClick={props.onTry}>
          Try it with values →
        </button>
      </div>
      <p class="hint">
        The keys to send in render <code>data</code>. Click a key to find its box on the page.
      </p>
      {readOnly ? (
        <p class="notice" data-testid="frozen-note">
          This template is frozen: its fields are shown read-only. Unfreeze it to edit them.
        </p>
      ) : (
        <SuggestedNames renames={renames} disabled={saving || drafts.size > 0} onConfirm={useSuggested} />
      )}
      <FieldsFilterBar fields={fields} filters={filters} onFilters={setFilters} />
      <p class="muted small" role="status" aria-live="polite">
        {shown.length === fields.length
          ? `${plural(fields.length, 'field')}`
          : `Showing ${shown.length} of ${plural(fields.length, 'field')}`}
      </p>
      {drafts.size > 0 && (
        <div class="save-bar">
          <span>{plural(drafts.size, 'field')} being edited</span>
          <button type="button" class="primary" disabled={saving} onClick={onSave}>
            {saving ? 'Saving…' : 'Save changes'}
          </button>
          <button
            type="button"
            disabled={saving}
            onClick={() => {
              setDrafts(new Map());
              setErrors(new Map());
              setFailure(null);
            }}
          >
            Discard all
          </button>
        </div>
      )}
      <ErrorText error={failure} />
      {notice && (
        <p class="alert ok" role="status">
          {notice}
        </p>
      )}
      {shown.length === 0 ? (
        <p class="muted">No field matches.</p>
      ) : (
        <div class="table-wrap">
          <table class="fields">
            <colgroup>
              <col class="col-key" />
              <col class="col-label" />
              <col class="col-type" />
              <col class="col-page" />
              <col class="col-required" />
              <col class="col-suggested" />
              <col class="col-actions" />
            </colgroup>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Label</th>
                <th scope="col">Type</th>
                <th scope="col">Page</th>
                <th scope="col">Required</th>
                <th scope="col">Suggested name</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.slice(0, limit).map((f) => (
                <FieldRow
                  key={f.pdfMeta.originalName}
                  field={f}
                  active={props.active === f.name}
                  boxCount={boxCounts.get(f.name) ?? 0}
                  draft={drafts.get(f.pdfMeta.originalName)}
                  errors={errors.get(f.pdfMeta.originalName)}
                  readOnly={readOnly}
                  saving={saving}
                  onHover={onHover}
                  onSelect={onSelect}
                  onEdit={onEdit}
                  onDraft={onDraft}
                  onDiscard={onDiscard}
                  onSave={onSave}
                />
              ))}
              {shown.length > limit && <MoreRows hidden={shown.length - limit} onMore={more} />}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/** The last row while some are not drawn: draws the next ones when it nears the screen, or on a click. */
function MoreRows(props: { hidden: number; onMore: () => void }) {
  const row = useRef<HTMLTableRowElement>(null);
  const { onMore } = props;
  useEffect(() => {
    const el = row.current;
    if (!el) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onMore(), {
      rootMargin: '400px 0px',
    });
    io.observe(el);
    return () => io.disconnect();
  }, [onMore, props.hidden]);
  return (
    <tr class="more-rows" ref={row}>
      <td colSpan={7}>
        <button type="button" onClick={onMore}>
          Show {Math.min(props.hidden, CHUNK)} more ({props.hidden} not shown yet)
        </button>
      </td>
    </tr>
  );
}
