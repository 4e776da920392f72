// Draws the appearances the edits call for, once every edit is in: new fields get their empty look,
// changed text and choice fields are drawn again with their current value, by the fill engine's own
// modules (so an edited template looks exactly like one filled later).
import { fillChoice } from '../fill/choice.js';
import type { FillContext } from '../fill/fill-context.js';
import { fillText } from '../fill/field-text.js';
import { fillSignatureText } from '../fill/signature-image.js';
import { N, getDict, textOf } from '../pdf-objects.js';
import { drawNewButton } from './button-look.js';
import { acroFormOf, type EditContext } from './edit-context.js';
import { choiceValues, kindOf } from './form-outline.js';

/** Draws the fields queued in ec.redraw. Warnings (a long prefilled value cut) are not the editor's concern. */
export function drawQueued(ec: EditContext): void {
  if (ec.redraw.size === 0) return;
  const fc: FillContext = { doc: ec.doc, ctx: ec.ctx, acroForm: acroFormOf(ec), fonts: ec.fonts, warnings: [] };
  for (const field of ec.redraw) {
    const kind = kindOf(field);
    if (kind === 'text') fillText(fc, field, textOf(field.dict.lookup(N('V'))) || null);
    else if (kind === 'dropdown' || kind === 'listbox') fillChoice(fc, field, choiceValues(field));
    else if (kind === 'signature') fillSignatureText(fc, field, null);
    else if (kind === 'checkbox' || kind === 'radio') {
      // Only new buttons are queued; each widget of a new radio group is on-state "0", "1", ... (/Opt order).
      field.widgets.forEach((w, i) => {
        if (!getDict(w, 'AP')) drawNewButton(w, ec.fonts, kind === 'radio', kind === 'radio' ? String(i) : 'Yes');
      });
    }
  }
}
