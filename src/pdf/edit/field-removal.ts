// Deletes a field: its widgets leave every page's /Annots, the field leaves its parent's /Kids (or
// /AcroForm /Fields) and the calculation order; a parent left without kids goes with it. The objects
// stay in the file's earlier revision, unreferenced.
import type { PDFDict } from '@cantoo/pdf-lib';
import type { RawField } from '../field-tree.js';
import { MAX_FIELD_DEPTH, getArray, getDict } from '../pdf-objects.js';
import type { EditContext } from './edit-context.js';
import { removeFrom } from './field-changes.js';

export function deleteField(ec: EditContext, field: RawField): void {
  for (const page of ec.pages) {
    const annots = getArray(page.dict, 'Annots');
    if (annots) for (const w of field.widgets) removeFrom(annots, w);
  }
  const form = getDict(ec.catalog, 'AcroForm');
  const fields = form && getArray(form, 'Fields');
  let node: PDFDict = field.dict;
  for (let depth = 0; depth < MAX_FIELD_DEPTH; depth++) {
    // Some producers list kids in /Fields as well as under their parent: both lists lose the node.
    removeFrom(fields, node);
    if (form) removeFrom(getArray(form, 'CO'), node);
    const parent = getDict(node, 'Parent');
    const kids = parent && getArray(parent, 'Kids');
    if (!parent || !kids) break;
    removeFrom(kids, node);
    if (kids.size() > 0) break;
    node = parent;
  }
  ec.fields.delete(field.fullName);
  ec.redraw.delete(field);
}
