// The field editor works on PDF names; the API lets a caller name a field by its render key too. This
// step translates the names of updates and deletes (key first, then PDF name, as render data is read)
// and refuses a new field whose name is another field's key: render data naming it would be ambiguous.
// Pure. A new name equal to a PDF name is left to the engine, which refuses it in its own words.
import type { FieldEdit, FieldEditProblem } from '../../pdf/types.js';
import type { TemplateField } from '../render-data/template-field.js';

export interface EditsInPdfNames {
  edits: FieldEdit[];
  /** new fields named like another field's render key */
  problems: FieldEditProblem[];
  /** PDF name -> the name the caller used for it, to name problems as the caller wrote them */
  sentAs: Map<string, string>;
}

export function toPdfNames(fields: readonly TemplateField[], edits: readonly FieldEdit[]): EditsInPdfNames {
  const byKey = new Map(fields.map((f) => [f.name, f.pdfMeta.originalName]));
  const pdfNames = new Set(fields.map((f) => f.pdfMeta.originalName));
  // Fields deleted earlier in the request free their key and name for the edits after them.
  const deleted = new Set<string>();
  const problems: FieldEditProblem[] = [];
  const sentAs = new Map<string, string>();
  const pdfName = (name: string) => {
    const original = byKey.get(name);
    if (original === undefined || deleted.has(original)) return name;
    if (original !== name && !sentAs.has(original)) sentAs.set(original, name);
    return original;
  };
  const out = edits.map((edit): FieldEdit => {
    if (edit.op === 'add') {
      const { name } = edit.field;
      const owner = byKey.get(name);
      if (owner !== undefined && owner !== name && !deleted.has(owner) && !pdfNames.has(name)) {
        problems.push({
          field: name,
          message: `"${name}" is the render key of the field "${owner}": choose another name`,
        });
      }
      return edit;
    }
    const original = pdfName(edit.name);
    if (edit.op === 'delete') deleted.add(original);
    return { ...edit, name: original };
  });
  return { edits: out, problems, sentAs };
}

/** Engine problems named as the caller named the field. */
export function namedAsSent(problems: readonly FieldEditProblem[], sentAs: Map<string, string>): FieldEditProblem[] {
  return problems.map((p) => ({ ...p, field: sentAs.get(p.field) ?? p.field }));
}
