// Appearance state dictionaries held directly in /AP. A widget's /AP /N (or /D, /R) may be a
// reference to its dictionary of states, which the PDF format allows, but poppler looks /N up
// without following the reference when it picks the state named by /AS and then draws nothing: the
// checked boxes of such a form (a macOS re-save of the W-9) were blank in Evince, Okular and
// pdftoppm once /NeedAppearances (which makes poppler draw its own) was gone. Held directly, the
// same states are found by every viewer.
import { PDFDict } from '@cantoo/pdf-lib';
import { N, deref, getDict } from '../pdf-objects.js';

const STATE_KEYS = ['N', 'D', 'R'].map(N);

/** Replaces /AP entries that refer to a dictionary of states by a direct copy of it. */
export function inlineAppearanceStates(widget: PDFDict): void {
  const ap = getDict(widget, 'AP');
  if (!ap) return;
  for (const key of STATE_KEYS) {
    const entry = ap.get(key);
    if (entry instanceof PDFDict) continue;
    const states = deref(ap.context, entry);
    // A stream (one appearance for every state) may stay a reference: it is always one.
    if (!(states instanceof PDFDict)) continue;
    ap.set(key, states.clone(ap.context));
  }
}
