// Encrypted forms whose strings are literal ( ) strings (as LiveCycle writes them), in every scheme
// opened with the empty user password: a decrypted string means exactly its bytes (a backslash in it
// is no escape), and every string written out is escaped, so no field vanishes and no object is
// swallowed by a string ending in "\".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import { fillPdf } from '../../src/pdf/fill/fill.js';
import type { FillValue } from '../../src/pdf/types.js';
import {
  ENCRYPTIONS,
  ESCAPED_FIELDS,
  encryptWithLiteralStrings,
  escapedStringsForm,
} from '../helpers/fidelity-forms.js';
import { hasTool, pdftkFields, qpdfCheck } from '../helpers/pdf-tools.js';
import { pdfjsValue, readWithPdfjs } from '../helpers/pdfjs.js';

const NEW_VALUES: Record<string, string> = {
  'Sec\\.A': 'new \\value',
  'Total (net)': 'net (1) \\',
  'Path\\': 'D:\\out\\',
  '小(名)': '小林 (名) \\',
};

describe.skipIf(!hasTool('qpdf'))('encrypted forms with literal strings', () => {
  let tmp: string;
  let plain: Uint8Array;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'encrypted-strings-'));
    plain = await escapedStringsForm();
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const scheme of Object.keys(ENCRYPTIONS) as (keyof typeof ENCRYPTIONS)[]) {
    describe(scheme, () => {
      let bytes: Uint8Array;
      beforeAll(() => {
        bytes = new Uint8Array(encryptWithLiteralStrings(plain, scheme, tmp));
      });

      it('reads every field name as its bytes: backslashes, parentheses and UTF-16 kept', async () => {
        const analysis = await analyse(bytes);
        expect(analysis.encrypted).toBe(true);
        expect(analysis.fields.map((f) => f.pdfMeta.originalName)).toEqual(Object.keys(ESCAPED_FIELDS));
        expect(analysis.fields.map((f) => f.label)).toEqual([
          'tip Sec\\.A\\',
          'tip Total (net)\\',
          'tip Path\\\\',
          'tip utf16\\',
        ]);
      });

      it('writes outputs that pass qpdf --check and keep every field with its new value', async () => {
        const analysis = await analyse(bytes);
        const values: Record<string, FillValue> = Object.fromEntries(
          Object.entries(NEW_VALUES).map(([name, text]) => [name, { kind: 'text', text }]),
        );
        for (const flatten of [false, true]) {
          const out = await fillPdf(bytes, analysis, { values, flatten });
          expect(out.warnings).toEqual([]);
          const file = path.join(tmp, `${scheme}-${flatten}.pdf`);
          fs.writeFileSync(file, out.bytes);
          const check = await qpdfCheck(file);
          expect(check.code, check.output).toBe(0);
          const read = await readWithPdfjs(out.bytes, { text: flatten });
          if (flatten) {
            expect(read.fields).toBeNull();
            const squash = (t: string) => t.replace(/\s+/g, '');
            for (const text of Object.values(NEW_VALUES)) expect(squash(read.pageTexts[0])).toContain(squash(text));
            continue;
          }
          const seen = Object.fromEntries(Object.entries(read.fields ?? {}).map(([k, v]) => [k, pdfjsValue(v)]));
          expect(seen).toEqual(NEW_VALUES);
          if (hasTool('pdftk')) {
            const listed = await pdftkFields(file);
            expect(Object.fromEntries(listed.map((f) => [f.name, f.values.at(-1)]))).toEqual(NEW_VALUES);
          }
        }
      });
    });
  }
});
