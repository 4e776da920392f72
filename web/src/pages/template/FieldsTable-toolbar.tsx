import { useMemo, useState } from 'preact/hooks';
import type { SchemaField } from '../../api.js';
import { plural } from '../../format.js';
import { filterChoices, isFiltered, NO_FILTERS, type FieldFilters, type YesNo } from './field-filters.js';

/** The search box and the filter menus above the fields table. */
export function FieldsFilterBar(props: {
  fields: SchemaField[];
  filters: FieldFilters;
  onFilters: (f: FieldFilters) => void;
}) {
  const { filters } = props;
  const choices = useMemo(() => filterChoices(props.fields), [props.fields]);
  const set = (patch: Partial<FieldFilters>) => props.onFilters({ ...filters, ...patch });
  return (
    <div class="field-filters">
      <label class="search">
        Search
        <input
          type="search"
          value={filters.search}
          placeholder="key, PDF name, label or description"
          onInput={(e) => set({ search: e.currentTarget.value })}
        />
      </label>
      <label>
        Type
        <select value={filters.type} onChange={(e) => set({ type: e.currentTarget.value as FieldFilters['type'] })}>
          <option value="any">any</option>
          {choices.types.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label>
        Page
        <select
          value={String(filters.page)}
          onChange={(e) => {
            const v = e.currentTarget.value;
            set({ page: v === 'any' ? 'any' : Number(v) });
          }}
        >
          <option value="any">any</option>
          {choices.pages.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <YesNoFilter label="Required" value={filters.required} onChange={(required) => set({ required })} />
      <YesNoFilter label="Computed" value={filters.computed} onChange={(computed) => set({ computed })} />
      <label class="check">
        <input
          type="checkbox"
          checked={filters.unnamedOnly}
          onChange={(e) => set({ unnamedOnly: e.currentTarget.checked })}
        />
        Unnamed only
      </label>
      {isFiltered(filters) && (
        <button type="button" class="link" onClick={() => props.onFilters(NO_FILTERS)}>
          Clear filters
        </button>
      )}
    </div>
  );
}

function YesNoFilter(props: { label: string; value: YesNo; onChange: (v: YesNo) => void }) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as YesNo)}>
        <option value="any">any</option>
        <option value="yes">yes</option>
        <option value="no">no</option>
      </select>
    </label>
  );
}

/** "Use suggested names", with a confirmation that says how many keys change and lists them. */
export function SuggestedNames(props: {
  renames: { from: string; to: string }[];
  disabled: boolean;
  onConfirm: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const n = props.renames.length;
  if (n === 0) return null;
  if (!asking) {
    return (
      <div class="suggest-row">
        <button type="button" disabled={props.disabled} onClick={() => setAsking(true)}>
          Use suggested names…
        </button>
        {props.disabled && <span class="muted small">Save or discard your edits first.</span>}
      </div>
    );
  }
  return (
    <div class="notice suggest-confirm" role="alertdialog" aria-labelledby="suggest-title">
      <p id="suggest-title">
        <strong>{plural(n, 'key')} will change</strong> to the name suggested from each field's label. Callers then send
        the new keys (a field's PDF name stays accepted too).
      </p>
      <details>
        <summary>See the {plural(n, 'change')}</summary>
        <ul class="rename-list">
          {props.renames.slice(0, 200).map((r) => (
            <li key={r.from}>
              <code>{r.from}</code> → <code>{r.to}</code>
            </li>
          ))}
          {n > 200 && <li class="muted">… and {n - 200} more</li>}
        </ul>
      </details>
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={props.disabled}
          onClick={() => props.onConfirm().then(() => setAsking(false))}
        >
          Rename {plural(n, 'key')}
        </button>
        <button type="button" onClick={() => setAsking(false)}>
          Cancel
        </button>
      </div>
    </div>
  );
}
