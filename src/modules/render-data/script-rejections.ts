// Values the form's own validate or keystroke scripts refused at render time (`event.rc = false`, reported
// by the engine as FillResult.scriptRejections): in strict mode the render is refused with VALIDATION_ERROR
// naming every such field and the script's message, otherwise each is a SCRIPT_REJECTED_VALUE warning.
// Used by renders, async jobs and batch items, previews and the CLI alike.
import type { AnalysedField, ScriptRejection } from '../../pdf/types.js';
import { DataValidationError } from '../../errors.js';
import type { TemplateField } from './template-field.js';

/** A caller's string cut for messages (a script may echo a long value). */
const clip = (s: string, max = 80) => (s.length > max ? `${s.slice(0, max)}…` : s);

function describe(key: string, r: ScriptRejection): string {
  const said = r.message?.trim() ? `: ${clip(r.message.trim(), 300)}` : '';
  return `Field "${key}": the form's own check refused ${JSON.stringify(clip(r.value))}${said}`;
}

/**
 * The warnings for `rejections` (empty when there are none); in strict mode, throws DataValidationError
 * instead. Fields are named by their render key: the engine names a field by the analysis's `name` (the
 * analyser's key, which a team may have renamed) or its PDF name; `analysed` are the analysis's fields.
 */
export function scriptRejectionWarnings(
  fields: readonly TemplateField[],
  rejections: readonly ScriptRejection[] | undefined,
  strict: boolean,
  analysed: readonly AnalysedField[] = fields,
): string[] {
  if (!rejections || rejections.length === 0) return [];
  const keyOf = new Map(fields.map((f) => [f.pdfMeta.originalName, f.name]));
  const pdfNameOf = new Map(analysed.map((f) => [f.name, f.pdfMeta.originalName]));
  const keyFor = (name: string) => keyOf.get(pdfNameOf.get(name) ?? name) ?? name;
  const named = rejections.map((r) => ({ key: keyFor(r.field), r }));
  if (!strict) return named.map(({ key, r }) => `SCRIPT_REJECTED_VALUE: ${describe(key, r)}`);
  const [first] = named;
  const more = named.length > 1 ? ` (and ${named.length - 1} more: see details.errors)` : '';
  throw new DataValidationError(
    {
      field: first.key,
      expected: "a value the form's own validation accepts",
      received: JSON.stringify(clip(first.r.value)),
      errors: named.map(({ key, r }) => ({
        field: key,
        expected: "a value the form's own validation accepts",
        received: JSON.stringify(clip(r.value)),
        value: clip(r.value),
        message: r.message?.trim() ? clip(r.message.trim(), 300) : "refused by the form's own check",
      })),
    },
    `${describe(first.key, first.r)}${more}`,
  );
}
