// The analysis of a form's own scripts (analysis/field-scripts.ts): computed fields, script kinds, what a
// calculation reads, APIs the sandbox will not offer, document-level scripts; on forms built here, on the
// corpus, and on hostile scripts (huge, cyclic /Next chains, deep name trees).
import fs from 'node:fs';
import path from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, type PDFRef } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { calculationOf, scriptKindOf, unsupportedApis } from '../../src/pdf/analysis/script-kinds.js';
import type { AnalysedField } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';

type Actions = Partial<Record<'C' | 'F' | 'K' | 'V', string | PDFRef>>;

interface FieldSpec {
  name: string;
  aa?: Actions;
  readOnly?: boolean;
}

/** A form of text fields with the given /AA JavaScript, /CO order and document-level scripts. */
async function scriptForm(
  fields: FieldSpec[],
  opts: {
    co?: string[];
    docScripts?: Record<string, string>;
    edit?: (doc: PDFDocument, refs: Map<string, PDFRef>) => void;
  } = {},
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([400, 40 + fields.length * 30]);
  const form = doc.getForm();
  const ctx = doc.context;
  const refs = new Map<string, PDFRef>();
  fields.forEach((spec, i) => {
    const f = form.createTextField(spec.name);
    f.addToPage(page, { x: 10, y: 10 + i * 30, width: 200, height: 20 });
    if (spec.readOnly) f.enableReadOnly();
    refs.set(spec.name, f.acroField.ref);
    if (!spec.aa) return;
    const aa = ctx.obj({}) as PDFDict;
    for (const [key, js] of Object.entries(spec.aa)) {
      aa.set(
        PDFName.of(key),
        typeof js === 'string' ? ctx.obj({ S: 'JavaScript', JS: PDFHexString.fromText(js) }) : js,
      );
    }
    f.acroField.dict.set(PDFName.of('AA'), aa);
  });
  const acroForm = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict);
  if (opts.co) acroForm.set(PDFName.of('CO'), ctx.obj(opts.co.map((n) => refs.get(n)!)));
  if (opts.docScripts) {
    const names: unknown[] = [];
    for (const [name, js] of Object.entries(opts.docScripts).sort()) {
      names.push(PDFHexString.fromText(name), ctx.obj({ S: 'JavaScript', JS: PDFHexString.fromText(js) }));
    }
    doc.catalog.set(PDFName.of('Names'), ctx.obj({ JavaScript: ctx.obj({ Names: names as never }) }));
  }
  opts.edit?.(doc, refs);
  return doc.save({ useObjectStreams: false, updateFieldAppearances: false });
}

const byName = (fields: AnalysedField[], name: string) => fields.find((f) => f.pdfMeta.originalName === name)!;

describe('script kinds (static reading)', () => {
  it('reads every AFSimple_Calculate operator and its list, in the forms Acrobat and hand-written scripts use', () => {
    expect(calculationOf('AFSimple_Calculate("SUM", new Array ("a", "b"));')).toEqual({
      kind: 'sum',
      reads: ['a', 'b'],
    });
    expect(calculationOf("AFSimple_Calculate('PRD', ['a','b'])")).toEqual({ kind: 'product', reads: ['a', 'b'] });
    expect(calculationOf('AFSimple_Calculate("AVG", "a, b ,c");')).toEqual({ kind: 'average', reads: ['a', 'b', 'c'] });
    expect(calculationOf('AFSimple_Calculate("MIN", new Array("x.1", "x.2"))')).toEqual({
      kind: 'minimum',
      reads: ['x.1', 'x.2'],
    });
    expect(calculationOf('/* total */ AFSimple_Calculate("MAX", new Array("a"));')).toEqual({
      kind: 'maximum',
      reads: ['a'],
    });
    // a list built at run time cannot be read statically: the kind stands, reads are not given
    expect(calculationOf('AFSimple_Calculate("SUM", names)')).toEqual({ kind: 'sum' });
    // more than the call, or an unknown operator: a custom script
    expect(calculationOf('AFSimple_Calculate("SUM", ["a"]); event.value *= 2;').kind).toBe('custom');
    expect(calculationOf('AFSimple_Calculate("MEDIAN", ["a"])').kind).toBe('custom');
    expect(calculationOf('event.value = this.getField("a").value * 2;')).toEqual({ kind: 'custom' });
  });

  it('reads simplified field notation, escaped dots and spaces included', () => {
    expect(
      calculationOf(
        '/** BVCALC N\\.CASS-N\\.CASSNONDED * 2 + (Line\\ 1 / 3.5) EVCALC **/event.value=AFMakeNumber(getField("N.CASS").value)',
      ),
    ).toEqual({ kind: 'simplified', reads: ['N.CASS', 'N.CASSNONDED', 'Line 1'] });
  });

  it('names the AF built-in of a format, keystroke or validate script, and custom for anything else', () => {
    expect(scriptKindOf('AFNumber_Format(2, 0, 0, 0, "€", true);')).toBe('AFNumber');
    expect(scriptKindOf('AFNumber_Keystroke(2,2,0,0,"",false)')).toBe('AFNumber');
    expect(scriptKindOf('AFPercent_Format(1, 0)')).toBe('AFPercent');
    expect(scriptKindOf('AFDate_FormatEx("dd/mm/yyyy; (x)");')).toBe('AFDate');
    expect(scriptKindOf('AFTime_Keystroke(0)')).toBe('AFTime');
    expect(scriptKindOf('AFSpecial_KeystrokeEx("999-99")')).toBe('AFSpecial');
    expect(scriptKindOf('AFRange_Validate(true, 0, true, 100)')).toBe('AFRange_Validate');
    expect(scriptKindOf('if (event.value > 10) event.rc = false;')).toBe('custom');
    expect(scriptKindOf('  // nothing\n /* at all */ ;')).toBeUndefined();
  });

  it('finds the APIs the sandbox will not offer, outside strings and comments only', () => {
    const apis = (js: string) => unsupportedApis(js).map((u) => u.api);
    expect(apis('if (app.alert("Sure?", 2, 2) == 4) this.resetForm();')).toEqual(['app.alert']);
    expect(apis('var r = app.alert("Sure?", 2, 2);')).toEqual(['app.alert']);
    expect(apis('app.alert("Only information");')).toEqual([]); // a message without a reply is harmless
    expect(apis('var s = app.response("Name?");')).toEqual(['app.response']);
    expect(apis('xfa.form.recalculate(1);')).toEqual(['xfa']);
    expect(apis('this.mailDoc(true); this.submitForm("https://x.test");')).toEqual(['mail', 'submitForm']);
    expect(apis('SOAP.request({}); Net.HTTP.request({});')).toEqual(['SOAP', 'Net']);
    expect(apis('app.launchURL("https://x.test", true);')).toEqual(['launchURL']);
    expect(apis('this.importDataObject("a");')).toEqual(['importDataObject']);
    expect(apis('this.print({}); util.printf("%d", 1); console.println("x");')).toEqual(['print']);
    // in a string or a comment it is only text
    expect(apis('var s = "use SOAP. or xfa.form"; // app.response(1)\n/* submitForm( */')).toEqual([]);
  });
});

describe('analyse(): computed fields and scripts', () => {
  it('marks computed fields with their calculation and what they read, others with their script kinds', async () => {
    const bytes = await scriptForm(
      [
        { name: 'a', aa: { F: 'AFNumber_Format(2, 0, 0, 0, "", false);', K: 'AFNumber_Keystroke(2,0,0,0,"",false);' } },
        { name: 'b', aa: { V: 'AFRange_Validate(true, 0, true, 100);' } },
        { name: 'sum', aa: { C: 'AFSimple_Calculate("SUM", new Array("a", "b"));' }, readOnly: true },
        { name: 'twice', aa: { C: '/** BVCALC sum * 2 EVCALC **/ event.value = 2 * getField("sum").value;' } },
        { name: 'custom', aa: { C: 'event.value = myTotal();' } },
        { name: 'idle', aa: { C: '// nothing here' } },
        { name: 'plain' },
      ],
      { co: ['twice', 'sum'] },
    );
    const analysis = await analyse(bytes);
    const f = (n: string) => byName(analysis.fields, n);
    expect(f('a')).toMatchObject({ scripts: { format: 'AFNumber', keystroke: 'AFNumber' } });
    expect(f('a').computed).toBeUndefined();
    expect(f('b').scripts).toEqual({ validate: 'AFRange_Validate' });
    expect(f('sum')).toMatchObject({ computed: true, calculation: { kind: 'sum', reads: ['a', 'b'] } });
    expect(f('sum').pdfMeta.readOnly).toBe(true);
    expect(f('twice')).toMatchObject({ computed: true, calculation: { kind: 'simplified', reads: ['sum'] } });
    expect(f('custom')).toMatchObject({ computed: true, calculation: { kind: 'custom' } });
    expect(f('custom').calculation?.reads).toBeUndefined();
    // a calculate action that does nothing computes nothing: the caller may fill the field
    expect(f('idle').computed).toBeUndefined();
    expect(f('plain')).not.toHaveProperty('scripts');
    expect(f('plain')).not.toHaveProperty('calculation');
    // the calculation order is /CO's, not the fields'
    expect(analysis.scripts?.calculationOrder).toEqual(['twice', 'sum']);
  });

  it('resolves a calculation naming a parent field to every field under it, and drops names of no field', async () => {
    const bytes = await scriptForm([
      { name: 'line.1' },
      { name: 'line.2' },
      { name: 'total', aa: { C: 'AFSimple_Calculate("SUM", new Array("line", "missing", "line.2"));' } },
    ]);
    const total = byName((await analyse(bytes)).fields, 'total');
    expect(total.calculation).toEqual({ kind: 'sum', reads: ['line.1', 'line.2'] });
  });

  it('lists unsupported scripts per field with the action and reason, and summarises document-level scripts', async () => {
    const bytes = await scriptForm(
      [
        {
          name: 'x',
          aa: {
            C: 'event.value = app.response("How much?");',
            V: 'if (app.alert("Sure?", 2, 2) != 4) event.rc = false;',
          },
        },
        { name: 'y', aa: { F: 'xfa.host.messageBox("hi");' } },
      ],
      {
        docScripts: {
          helpers: 'function calcTotal(a, b) { return a + b; }\nvar half = function (x) { return x / 2; };',
          send: 'function send() { this.mailDoc(true); }',
        },
      },
    );
    const analysis = await analyse(bytes);
    expect(byName(analysis.fields, 'x').unsupportedScripts).toEqual([
      { action: 'calculate', api: 'app.response', reason: expect.stringContaining('type an answer') },
      { action: 'validate', api: 'app.alert', reason: expect.stringContaining('question') },
    ]);
    expect(byName(analysis.fields, 'y')).toMatchObject({
      scripts: { format: 'custom' },
      unsupportedScripts: [{ action: 'format', api: 'xfa' }],
    });
    expect(analysis.scripts?.document).toEqual([
      { name: 'helpers', functions: ['calcTotal', 'half'] },
      { name: 'send', functions: ['send'], unsupported: [{ api: 'mail', reason: 'sends e-mail' }] },
    ]);
  });

  it('follows an action /Next chain, and a merged field/widget dictionary holding /AA', async () => {
    const bytes = await scriptForm([{ name: 'a' }, { name: 'b' }], {
      edit(doc, refs) {
        const ctx = doc.context;
        const second = ctx.register(
          ctx.obj({ S: 'JavaScript', JS: PDFHexString.fromText('this.submitForm("https://x.test");') }),
        );
        const first = ctx.obj({ S: 'JavaScript', JS: PDFHexString.fromText('event.value = 1;'), Next: [second] });
        const field = ctx.lookup(refs.get('b')!, PDFDict);
        // pdf-lib puts the widget in /Kids: the action on the widget must be found too
        const widget = ctx.lookup(field.lookup(PDFName.of('Kids'), PDFArray).get(0), PDFDict);
        widget.set(PDFName.of('AA'), ctx.obj({ C: first }));
      },
    });
    const b = byName((await analyse(bytes)).fields, 'b');
    expect(b).toMatchObject({ computed: true, calculation: { kind: 'custom' } });
    expect(b.unsupportedScripts).toEqual([{ action: 'calculate', api: 'submitForm', reason: expect.any(String) }]);
  });
});

describe('analyse(): hostile scripts stay bounded', () => {
  it('survives a cyclic /Next chain, an array containing itself and a cyclic name tree', async () => {
    const bytes = await scriptForm([{ name: 'a' }], {
      edit(doc, refs) {
        const ctx = doc.context;
        const one = ctx.register(ctx.obj({ S: 'JavaScript', JS: PDFHexString.fromText('event.value = 1;') }));
        const two = ctx.register(ctx.obj({ S: 'JavaScript', JS: PDFHexString.fromText('event.value += 1;') }));
        ctx.lookup(one, PDFDict).set(PDFName.of('Next'), two);
        const loop = ctx.register(ctx.obj([]));
        ctx.lookup(loop, PDFArray).push(loop);
        ctx.lookup(loop, PDFArray).push(one);
        ctx.lookup(two, PDFDict).set(PDFName.of('Next'), loop);
        ctx.lookup(refs.get('a')!, PDFDict).set(PDFName.of('AA'), ctx.obj({ C: one }));
        // a name tree whose kid is its own root
        const root = ctx.register(ctx.obj({ Names: [PDFHexString.fromText('s'), one] }));
        ctx.lookup(root, PDFDict).set(PDFName.of('Kids'), ctx.obj([root]));
        doc.catalog.set(PDFName.of('Names'), ctx.obj({ JavaScript: root }));
      },
    });
    const analysis = await analyse(bytes);
    expect(byName(analysis.fields, 'a')).toMatchObject({ computed: true, calculation: { kind: 'custom' } });
    expect(analysis.scripts?.document).toEqual([{ name: 's', functions: [] }]);
  });

  it('reads a huge script only up to its cap, and no name tree nested deeper than the limit', async () => {
    // 8 MB of code (compressed in the file) with 400,000 unclosed "app.alert(" calls: linear work, capped text
    const huge = `${'app.alert(x '.repeat(400_000)}${'var a = 1; '.repeat(300_000)}`;
    // and a 300 KB script as a text string (pdf-lib's own decoding of one overflows the stack)
    const long = `event.value = 1;${' '.repeat(300_000)}this.submitForm("x");`;
    const bytes = await scriptForm([{ name: 'a' }, { name: 'b', aa: { C: long } }], {
      edit(doc, refs) {
        const ctx = doc.context;
        const js = ctx.register(ctx.flateStream(huge));
        const action = ctx.register(ctx.obj({ S: 'JavaScript', JS: js }));
        ctx.lookup(refs.get('a')!, PDFDict).set(PDFName.of('AA'), ctx.obj({ C: action, F: action, V: action }));
        let node = ctx.register(
          ctx.obj({
            Names: [PDFHexString.fromText('deep'), ctx.obj({ S: 'JavaScript', JS: PDFHexString.fromText('1;') })],
          }),
        );
        for (let i = 0; i < 200; i++) node = ctx.register(ctx.obj({ Kids: [node] }));
        doc.catalog.set(PDFName.of('Names'), ctx.obj({ JavaScript: node }));
      },
    });
    const analysis = await analyse(bytes);
    expect(byName(analysis.fields, 'a')).toMatchObject({
      computed: true,
      calculation: { kind: 'custom' },
      scripts: { format: 'custom', validate: 'custom' },
    });
    // cut at 256 KB: the call past the cap is not seen
    expect(byName(analysis.fields, 'b')).toMatchObject({ computed: true, calculation: { kind: 'custom' } });
    expect(byName(analysis.fields, 'b').unsupportedScripts).toBeUndefined();
    // below the depth limit there is nothing: the deep script is not reached
    expect(analysis.scripts?.document).toEqual([]);
  });
});

describe.skipIf(!corpusDir())('analyse(): corpus forms with scripts', () => {
  const dir = corpusDir();
  const corpus = (file: string) => fs.readFileSync(path.join(dir ?? '', 'pdfs', file));

  it('the Luxembourg salary certificate: its totals are computed, in its own calculation order', async () => {
    const analysis = await analyse(corpus('luxembourg-certificat-salaire-160-2019.pdf'));
    const computed = analysis.fields.filter((f) => f.computed).map((f) => f.pdfMeta.originalName);
    expect(computed.sort()).toEqual(
      [
        'T.TOTREM',
        'T.COTDED',
        'T.21',
        'X.minusCASSNONDED',
        'X.minusinterCOTDED+10+11+12+13+14+17+18+19+21+22+23',
        'X.minusCOTDED+10+11+12+13+14+15+17+18+19+21+22+23',
      ].sort(),
    );
    // the sous-total sums the four remuneration lines with AFSimple_Calculate
    expect(byName(analysis.fields, 'T.TOTREM')).toMatchObject({
      computed: true,
      calculation: { kind: 'sum', reads: ['N.REM1', 'N.REM2', 'N.REM3', 'N.REM4'] },
      scripts: { format: 'AFNumber', validate: 'custom' },
      pdfMeta: { readOnly: true },
    });
    expect(byName(analysis.fields, 'T.COTDED').calculation).toEqual({
      kind: 'simplified',
      reads: ['N.CASS', 'N.CASSNONDED'],
    });
    expect(byName(analysis.fields, 'X.minusCASSNONDED').calculation).toEqual({
      kind: 'product',
      reads: ['N.CASSNONDED', 'X.minus1'],
    });
    expect(analysis.scripts?.calculationOrder).toEqual([
      'T.TOTREM',
      'X.minusCASSNONDED',
      'X.minusinterCOTDED+10+11+12+13+14+17+18+19+21+22+23',
      'X.minusCOTDED+10+11+12+13+14+15+17+18+19+21+22+23',
      'T.COTDED',
      'T.21',
    ]);
    expect(byName(analysis.fields, 'N.REM1')).toMatchObject({ scripts: { format: 'AFNumber' } });
    expect(byName(analysis.fields, 'N.REM1').computed).toBeUndefined();
  });

  it('other corpus forms: AF formats and keystrokes, custom keystrokes, document scripts asking questions', async () => {
    const ds11 = await analyse(corpus('us-dos-ds11-passport-application.pdf'));
    expect(ds11.fields.some((f) => f.scripts?.format === 'AFNumber' && f.scripts.keystroke === 'AFNumber')).toBe(true);
    const dates = await analyse(corpus('pdfjs-date-formats.pdf'));
    const kinds = new Set(dates.fields.flatMap((f) => Object.values(f.scripts ?? {})));
    expect([...kinds].sort()).toEqual(['AFDate', 'AFTime']);
    const swiss = await analyse(corpus('swiss-prescription-oxygenotherapie.pdf'));
    expect(swiss.fields.filter((f) => f.scripts?.keystroke === 'custom')).toHaveLength(1);
    // the 1040's viewer-version check asks the person and opens a web page: reported, never run for a field
    const f1040 = await analyse(corpus('irs-f1040-2024.pdf'));
    expect(f1040.fields.some((f) => f.computed)).toBe(false);
    const check = f1040.scripts?.document.find((d) => d.unsupported);
    expect(check?.unsupported?.map((u) => u.api)).toEqual(['app.alert', 'app.response', 'launchURL']);
    const scribus = await analyse(corpus('scribus-form.pdf'));
    expect(scribus.scripts?.document).toEqual([{ name: 'date', functions: ['date'] }]);
  });
});
