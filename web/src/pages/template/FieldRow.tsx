import { memo } from 'preact/compat';
import type { SchemaField } from '../../api.js';
import { defaultChoices, defaultText, type Draft } from './FieldsTable-edits.js';
import { isComputed, isUnnamed } from './field-filters.js';

export interface FieldRowProps {
  field: SchemaField;
  active: boolean;
  /** widgets drawn for the field on the page images */
  boxCount: number;
  /** the row's unsaved inputs: the editor is open when there is a draft */
  draft: Draft | undefined;
  /** the server's refusals for this row, from the last save */
  errors: string[] | undefined;
  readOnly: boolean;
  saving: boolean;
  onHover: (key: string | null) => void;
  onSelect: (key: string) => void;
  onEdit: (field: SchemaField) => void;
  onDraft: (original: string, draft: Draft) => void;
  onDiscard: (original: string) => void;
  onSave: () => void;
}

const SOURCE: Record<SchemaField['labelSource'], string> = {
  tooltip: 'from the tooltip',
  page: 'read on the page',
  none: 'no label',
};

/**
 * One field of the table, and below it its editor while it has a draft. Memoised: hovering a box or
 * typing in one row re-renders that row, not the 726 others of a long form.
 */
export const FieldRow = memo(function FieldRow(props: FieldRowProps) {
  const { field: f, draft, errors } = props;
  const original = f.pdfMeta.originalName;
  const idBase = `fe-${encodeURIComponent(original).replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  const classes = [props.active && 'active', errors?.length && 'invalid', draft && 'editing'].filter(Boolean);
  return (
    <>
      <tr
        data-field-row={f.name}
        data-original={original}
        class={classes.join(' ') || undefined}
        onMouseEnter={() => props.onHover(f.name)}
        onMouseLeave={() => props.onHover(null)}
      >
        {/* one element per cell: on a phone a cell is a two-column grid, its label beside it */}
        <td data-label="Key" class="key-cell">
          <div>
            <button
              type="button"
              class="field-key"
              onClick={() => props.onSelect(f.name)}
              onFocus={() => props.onHover(f.name)}
              aria-label={`Show ${f.name} on the page`}
            >
              <code>{f.name}</code>
            </button>
            {original !== f.name && (
              <div class="muted small">
                PDF <code>{original}</code>
              </div>
            )}
            {props.boxCount === 0 && <div class="muted small">no box found</div>}
            {props.boxCount > 1 && <div class="muted small">{props.boxCount} widgets</div>}
          </div>
        </td>
        <td data-label="Label">
          <div>
            {f.label ? <span>{f.label}</span> : <span class="muted">—</span>}{' '}
            <span class={`label-source source-${f.labelSource}`}>{SOURCE[f.labelSource]}</span>
            {f.description && <div class="muted small">{f.description}</div>}
          </div>
        </td>
        <td data-label="Type">
          <div>
            <span class={`type type-${f.type}`}>{f.type}</span>
            {isComputed(f) && <span class="badge computed">computed</span>}
            {f.hidden && <span class="badge">hidden</span>}
            {f.maxLength !== undefined && <div class="muted small">max {f.maxLength}</div>}
            {f.options && (
              <div class="muted small" title={(f.optionLabels ?? f.options).join(' · ')}>
                {f.options.length} options
              </div>
            )}
            {f.default !== undefined && <div class="muted small">default {defaultText(f.default)}</div>}
          </div>
        </td>
        <td data-label="Page">{f.pdfMeta.page}</td>
        <td data-label="Required">{f.required ? <span class="badge required">required</span> : 'no'}</td>
        <td data-label="Suggested">
          {f.suggestedName === f.name ? (
            <span class="muted small">same as key</span>
          ) : (
            <code class={isUnnamed(f) ? 'suggested better' : 'suggested'}>{f.suggestedName}</code>
          )}
        </td>
        <td data-label="" class="edit-cell">
          {!props.readOnly && !draft && (
            <button type="button" class="compact" onClick={() => props.onEdit(f)} aria-label={`Edit ${f.name}`}>
              Edit
            </button>
          )}
        </td>
      </tr>
      {draft && (
        <tr class={`field-editor${errors?.length ? ' invalid' : ''}`} data-editor-for={original}>
          <td colSpan={7}>
            <div class="editor-grid">
              <label>
                Key
                <input
                  id={`${idBase}-key`}
                  value={draft.name}
                  spellcheck={false}
                  autocomplete="off"
                  aria-invalid={errors?.length ? 'true' : undefined}
                  aria-describedby={errors?.length ? `${idBase}-errors` : undefined}
                  placeholder={original}
                  onInput={(e) => props.onDraft(original, { ...draft, name: e.currentTarget.value })}
                  onKeyDown={(e) => e.key === 'Enter' && props.onSave()}
                />
              </label>
              <label for={`${idBase}-default`}>
                Default
                <DefaultInput
                  id={`${idBase}-default`}
                  field={f}
                  draft={draft}
                  onDraft={props.onDraft}
                  onSave={props.onSave}
                />
              </label>
              <label class="wide">
                Description
                <input
                  value={draft.description}
                  maxLength={2000}
                  onInput={(e) => props.onDraft(original, { ...draft, description: e.currentTarget.value })}
                  onKeyDown={(e) => e.key === 'Enter' && props.onSave()}
                />
              </label>
              <label class="check">
                <input
                  type="checkbox"
                  checked={draft.required}
                  onChange={(e) => props.onDraft(original, { ...draft, required: e.currentTarget.checked })}
                />
                Required
              </label>
              <button type="button" class="discard" disabled={props.saving} onClick={() => props.onDiscard(original)}>
                Discard
              </button>
            </div>
            {errors && errors.length > 0 && (
              <ul class="row-errors" id={`${idBase}-errors`} data-testid="row-error">
                {errors.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            )}
          </td>
        </tr>
      )}
    </>
  );
});

function DefaultInput(props: {
  id: string;
  field: SchemaField;
  draft: Draft;
  onDraft: (original: string, draft: Draft) => void;
  onSave: () => void;
}) {
  const { field: f, draft } = props;
  const set = (value: string) => props.onDraft(f.pdfMeta.originalName, { ...draft, default: value });
  if (f.type === 'signature' || isComputed(f)) {
    return <input id={props.id} value="" disabled placeholder="not for this field" />;
  }
  const choices = defaultChoices(f);
  if (choices) {
    return (
      <select id={props.id} value={draft.default} onChange={(e) => set(e.currentTarget.value)}>
        <option value="">(none)</option>
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    );
  }
  return (
    <input
      id={props.id}
      value={draft.default}
      inputMode={f.type === 'number' ? 'decimal' : undefined}
      placeholder={f.type === 'date' ? 'YYYY-MM-DD' : '(none)'}
      onInput={(e) => set(e.currentTarget.value)}
      onKeyDown={(e) => e.key === 'Enter' && props.onSave()}
    />
  );
}
