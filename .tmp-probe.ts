import fs from 'node:fs';
import { analyse } from './src/pdf/analyse.js';
import { corpusFiles, manifestEntry } from './test/helpers/corpus.js';
const kindMap: Record<string,string[]> = { text:['text','date','number'], checkbox:['checkbox'], radio:['radio'], combo:['dropdown'], listbox:['dropdown'], signature:['signature'] };
for (const file of corpusFiles()) {
  const m = manifestEntry(file)!;
  const bytes = new Uint8Array(fs.readFileSync(file));
  const t = performance.now();
  try {
    const a = await analyse(bytes);
    const ms = (performance.now()-t).toFixed(0);
    const expected = m.fields.filter(f => f.kind !== 'pushbutton');
    const byName = new Map(a.fields.map(f => [f.pdfMeta.originalName, f]));
    const problems: string[] = [];
    if (!m.validAcroForm) problems.push('expected INVALID');
    if (a.pageCount !== m.pageCount) problems.push(`pages ${a.pageCount} vs ${m.pageCount}`);
    if (a.fields.length !== expected.length) problems.push(`count ${a.fields.length} vs ${expected.length}`);
    for (const e of expected) {
      const f = byName.get(e.fullName);
      if (!f) { problems.push('missing '+e.fullName); continue; }
      if (!kindMap[e.kind].includes(f.type)) problems.push(`${e.fullName} type ${f.type} vs ${e.kind}`);
      if (f.required !== e.flags.required) problems.push(`${e.fullName} required`);
      if ((f.pdfMeta.readOnly ?? false) !== e.flags.readOnly) problems.push(`${e.fullName} readOnly`);
      if (f.pdfMeta.page !== e.page) problems.push(`${e.fullName} page ${f.pdfMeta.page} vs ${e.page}`);
      if ((f.maxLength ?? null) !== e.maxLen) problems.push(`${e.fullName} maxLen ${f.maxLength} vs ${e.maxLen}`);
      if (f.detail.widgetCount !== e.widgetCount) problems.push(`${e.fullName} widgets ${f.detail.widgetCount} vs ${e.widgetCount}`);
      if (f.detail.inAcroFormFields !== e.inAcroFormFields) problems.push(`${e.fullName} inTree`);
      let exp: unknown = null, got: unknown = null;
      if (f.type === 'dropdown') { exp = e.options; got = f.options; }
      else if (f.type === 'radio') { exp = [...new Set((e.btnOpt ?? e.options ?? []).filter(x => x !== null))]; got = f.options; }
      else if (f.type === 'checkbox') { exp = e.options; got = f.detail.onStates; }
      if (JSON.stringify(exp) !== JSON.stringify(got)) problems.push(`${e.fullName} options ${JSON.stringify(got)} vs ${JSON.stringify(exp)}`);
      if (e.formatAction && !f.detail.format) problems.push(`${e.fullName} no format for ${e.formatAction}`);
    }
    console.log(file.split('/').pop(), ms+'ms', a.fields.length, problems.length ? problems.slice(0,8).join(' | ') : 'OK', a.encrypted, a.hasXfa);
  } catch (err: any) {
    console.log(file.split('/').pop(), m.validAcroForm ? 'UNEXPECTED ' : 'expected ', err.code, err.message);
  }
}
