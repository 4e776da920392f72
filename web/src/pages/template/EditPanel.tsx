// The box editor's side panel: the selected field's properties, and the pending changes with the
// problems the service found in each, by the field it named.
import type { ComponentChildren, JSX } from 'preact';
import {
  type Alignment,
  type Draft,
  type FieldEdit,
  editName,
  hasCells,
  hasMaxLength,
  hasOptions,
  hasText,
  type NewFieldType,
  withOptions,
} from './BoxEditorDrafts.js';
import { TOOLS, typeLabel } from './BoxEditorToolbar.js';
import { type Detection, isLow, percent } from './detection-review.js';

/** A refused save: problems by the field they name (as sent), and the others. */
export interface EditErrors {
  byField: Map<string, string[]>;
  general: string[];
}

interface Props {
  draft: Draft | null;
  drafts: Draft[];
  base: Draft[];
  edits: FieldEdit[];
  errors: EditErrors | null;
  /** the version just saved, until the next change */
  saved: number | null;
  disabled: string | null;
  onSelect: (id: string) => void;
  onChange: (fn: (d: Draft) => Draft) => void;
  /** a detected field under review: its key and type may change too (it is replaced on save) */
  onRetype: (type: NewFieldType) => void;
  onDelete: () => void;
  /** the detection a selected field came from, while its review is open */
  detection: Detection | null;
  /** the review's list, shown above the pending changes */
  review?: ComponentChildren;
}

/** A whole number from an input, or undefined when it is empty (the engine's default). */
function wholeOrEmpty(v: string): number | undefined {
  if (v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

export function EditPanel(props: Props) {
  const { draft: d, errors } = props;
  const off = props.disabled !== null;
  return (
    <aside class="split-side edit-panel" aria-label="Field properties and pending changes">
      {d ? (
        <FieldForm {...props} draft={d} off={off} />
      ) : (
        <p class="hint">
          {off ? props.disabled : 'Select a field on the page to change it, or pick a tool and draw a new one.'}
        </p>
      )}
      {props.review}

      <h3 class="h3">Pending changes</h3>
      {props.saved !== null && props.edits.length === 0 && (
        <p class="ok" role="status">
          Saved as version {props.saved}.
        </p>
      )}
      {errors && errors.general.length > 0 && (
        <div class="error" role="alert">
          {errors.general.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
      {errors && errors.byField.size > 0 && (
        <p class="error" role="alert">
          Nothing was saved: fix the {errors.byField.size === 1 ? 'field' : 'fields'} below and save again.
        </p>
      )}
      {props.edits.length === 0 ? (
        <p class="muted">None: the page shows the saved template.</p>
      ) : (
        <ul class="edit-pending">
          {props.edits.map((e) => {
            const name = editName(e);
            const target = props.drafts.find((x) => x.key === name || x.existing === name);
            const problems = errors?.byField.get(name) ?? [];
            return (
              <li
                key={`${e.op}:${name}`}
                data-pending={name}
                class={problems.length > 0 ? 'pending-item has-error' : 'pending-item'}
              >
                <button
                  type="button"
                  class="link"
                  disabled={!target || target.deleted}
                  onClick={() => target && props.onSelect(target.id)}
                >
                  <span class={`edit-op op-${e.op}`}>
                    {e.op === 'add' ? 'new' : e.op === 'delete' ? 'delete' : 'change'}
                  </span>{' '}
                  <code>{name}</code>
                  {e.op === 'add' && <span class="muted"> · {typeLabel(e.field.type)}</span>}
                  {e.op === 'update' && <span class="muted"> · {Object.keys(e.changes).join(', ')}</span>}
                </button>
                {problems.map((m) => (
                  <p key={m} class="error small" data-testid="edit-error">
                    {m}
                  </p>
                ))}
              </li>
            );
          })}
        </ul>
      )}
    </aside>
  );
}

function FieldForm(props: Props & { draft: Draft; off: boolean }) {
  const { draft: d, off } = props;
  const isNew = d.existing === undefined;
  const det = props.detection;
  const keyFree = isNew || det !== null;
  const problems = props.errors?.byField.get(d.key) ?? [];
  const set = (patch: Partial<Draft>) => props.onChange((x) => ({ ...x, ...patch }));
  const num = (label: string, value: number | undefined, onValue: (n: number | undefined) => void, hint?: string) => (
    <label class="edit-prop">
      {label}
      <input
        type="number"
        value={value ?? ''}
        placeholder={hint}
        disabled={off}
        onChange={(e: JSX.TargetedEvent<HTMLInputElement>) => onValue(wholeOrEmpty(e.currentTarget.value))}
      />
    </label>
  );
  const first = d.widgets[0];
  return (
    <form class="edit-form" aria-label={`Properties of ${d.key}`} onSubmit={(e) => e.preventDefault()}>
      <h3 class="h3">
        {isNew ? 'New field' : 'Field'} <span class={`type type-${d.type}`}>{typeLabel(d.type)}</span>
      </h3>
      {problems.length > 0 && (
        <div class="error" role="alert" data-testid="field-edit-error">
          {problems.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
      <label class="edit-prop">
        Key
        <input
          value={d.key}
          disabled={off || !keyFree}
          aria-invalid={problems.length > 0 ? 'true' : undefined}
          onChange={(e: JSX.TargetedEvent<HTMLInputElement>) => set({ key: e.currentTarget.value.trim() })}
        />
      </label>
      {!keyFree && <p class="hint small">An existing field's key is changed in its settings, not here.</p>}
      {det && (
        <>
          <p class={`small detect-about${isLow(det) ? ' low' : ''}`} data-testid="detection-about">
            Detected {typeLabel(det.type).toLowerCase()} ·{' '}
            {isLow(det) ? `low confidence (${percent(det)}): check it` : `confidence ${percent(det)}`}
            <br />
            {det.label ? `Caption: “${det.label}”` : 'No caption found near it'}
          </p>
          <label class="edit-prop">
            Type
            <select
              value={d.type}
              disabled={off}
              onChange={(e: JSX.TargetedEvent<HTMLSelectElement>) =>
                props.onRetype(e.currentTarget.value as NewFieldType)
              }
            >
              {TOOLS.filter((t) => t.tool !== 'select').map((t) => (
                <option key={t.tool} value={t.tool}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      <p class="muted small">
        Page {first.page} · [{first.rect.map((n) => Math.round(n * 10) / 10).join(', ')}] pt
        {d.widgets.length > 1 && ` · ${d.widgets.length} widgets`}
      </p>
      {hasText(d) && (
        <>
          {num('Font size (pt)', d.fontSize, (n) => set({ fontSize: n }), 'default; 0 fits the box')}
          <label class="edit-prop">
            Alignment
            <select
              value={d.alignment ?? ''}
              disabled={off}
              onChange={(e: JSX.TargetedEvent<HTMLSelectElement>) =>
                set({ alignment: (e.currentTarget.value || undefined) as Alignment | undefined })
              }
            >
              <option value="">{isNew ? 'default (left)' : 'unchanged'}</option>
              <option value="left">left</option>
              <option value="center">center</option>
              <option value="right">right</option>
            </select>
          </label>
        </>
      )}
      {hasMaxLength(d) && num('Max length (characters)', d.maxLength, (n) => set({ maxLength: n }), 'no limit')}
      {hasCells(d) && num('Comb cells', d.cells, (n) => set({ cells: n }), isNew ? undefined : 'not a comb')}
      {hasOptions(d) && (
        <label class="edit-prop">
          Options (one a line{d.type === 'radio' ? '; one button each' : ''})
          <textarea
            rows={Math.min(Math.max(d.options?.length ?? 2, 2), 8)}
            value={(d.options ?? []).join('\n')}
            disabled={off}
            onChange={(e: JSX.TargetedEvent<HTMLTextAreaElement>) => {
              const options = e.currentTarget.value
                .split('\n')
                .map((o) => o.trim())
                .filter((o) => o !== '');
              props.onChange((x) => withOptions(x, options));
            }}
          />
        </label>
      )}
      <label class="choice">
        <input
          type="checkbox"
          checked={d.required}
          disabled={off}
          onChange={(e: JSX.TargetedEvent<HTMLInputElement>) => set({ required: e.currentTarget.checked })}
        />{' '}
        Required
      </label>
      <p>
        <button type="button" class="danger" disabled={off} onClick={props.onDelete}>
          Delete field
        </button>
      </p>
    </form>
  );
}
