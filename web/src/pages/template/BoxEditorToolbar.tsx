// The box editor's toolbar: the tool to draw with (or select), the cells of a new comb, and the pending
// changes' undo, discard and save.
import type { Tool } from './BoxEditorDrafts.js';

export const TOOLS: { tool: Tool; label: string }[] = [
  { tool: 'select', label: 'Select' },
  { tool: 'text', label: 'Text' },
  { tool: 'multiline', label: 'Multiline' },
  { tool: 'number', label: 'Number' },
  { tool: 'date', label: 'Date' },
  { tool: 'checkbox', label: 'Check box' },
  { tool: 'radio', label: 'Radio group' },
  { tool: 'dropdown', label: 'Dropdown' },
  { tool: 'signature', label: 'Signature' },
  { tool: 'comb', label: 'Comb' },
];

/** Label of a field type, as the toolbar names it. */
export const typeLabel = (t: string) => TOOLS.find((x) => x.tool === t)?.label ?? t;

interface Props {
  tool: Tool;
  onTool: (t: Tool) => void;
  cells: number;
  onCells: (n: number) => void;
  pending: number;
  canUndo: boolean;
  onUndo: () => void;
  onDiscard: () => void;
  onSave: () => void;
  saving: boolean;
  /** why the editor is off (a frozen template), or null */
  disabled: string | null;
}

export function EditToolbar(props: Props) {
  const off = props.disabled !== null;
  return (
    <div class="edit-toolbar">
      {props.disabled && (
        <p class="notice edit-disabled" role="status">
          {props.disabled}
        </p>
      )}
      <div class="edit-tools" role="toolbar" aria-label="Field tools">
        {TOOLS.map((t) => (
          <button
            type="button"
            key={t.tool}
            class={props.tool === t.tool ? 'tool selected' : 'tool'}
            aria-pressed={props.tool === t.tool}
            disabled={off}
            onClick={() => props.onTool(t.tool)}
          >
            {t.label}
          </button>
        ))}
        <label class="edit-cells">
          Comb cells{' '}
          <input
            type="number"
            min={1}
            max={100}
            value={props.cells}
            disabled={off}
            onChange={(e) => {
              const n = Number(e.currentTarget.value);
              if (Number.isInteger(n) && n > 0) props.onCells(n);
            }}
          />
        </label>
      </div>
      <p class="hint edit-hint">
        {props.tool === 'select'
          ? 'Drag a box to move it, its corners to resize it. Arrow keys move the selected field 1 pt (Shift: 10 pt), Alt + arrows resize it, Delete removes it.'
          : `Drag on the page to draw the ${typeLabel(props.tool).toLowerCase()} field (a tap gives it the usual size).`}
      </p>
      <div class="edit-actions">
        <button type="button" onClick={props.onUndo} disabled={off || !props.canUndo}>
          Undo
        </button>
        <button type="button" onClick={props.onDiscard} disabled={off || props.pending === 0}>
          Discard all
        </button>
        <button
          type="button"
          class="primary"
          onClick={props.onSave}
          disabled={off || props.pending === 0 || props.saving}
        >
          {props.saving
            ? 'Saving…'
            : props.pending === 0
              ? 'No changes'
              : `Save ${props.pending} ${props.pending === 1 ? 'change' : 'changes'}`}
        </button>
      </div>
    </div>
  );
}
