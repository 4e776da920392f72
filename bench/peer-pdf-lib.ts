// pdf-lib by hand (upstream `pdf-lib`, a dev dependency): what a Node developer writes without us.
// Fill every field by its qualified name, let pdf-lib draw the appearances with Helvetica, flatten, save.
import {
  PDFCheckBox,
  PDFDocument,
  PDFDropdown,
  PDFOptionList,
  PDFRadioGroup,
  PDFTextField,
  type PDFField,
} from 'pdf-lib';
import type { PeerValue } from './peer-values.js';

function setField(field: PDFField, v: PeerValue): void {
  if (field instanceof PDFTextField && v.kind === 'text') {
    const max = field.getMaxLength();
    field.setText(max !== undefined ? v.text.slice(0, max) : v.text);
  } else if (field instanceof PDFCheckBox && v.kind === 'check') {
    if (v.checked) field.check();
    else field.uncheck();
  } else if (field instanceof PDFRadioGroup && v.kind === 'check' && v.state) {
    field.select(v.state);
  } else if ((field instanceof PDFDropdown || field instanceof PDFOptionList) && v.kind === 'choice') {
    field.select(v.value);
  } else if (field instanceof PDFOptionList && v.kind === 'choices') {
    field.select(v.values);
  }
}

/** One fill (+ flatten) of `template`; throws where pdf-lib does (e.g. a character Helvetica lacks). */
export async function pdfLibFill(
  template: Uint8Array,
  values: Record<string, PeerValue>,
  flatten: boolean,
): Promise<Uint8Array> {
  const doc = await PDFDocument.load(template, { ignoreEncryption: true, updateMetadata: false });
  const form = doc.getForm();
  for (const field of form.getFields()) {
    const v = values[field.getName()];
    if (v) setField(field, v);
  }
  if (flatten) form.flatten();
  return doc.save();
}
