// Keys that survive a new edition of a form: which new field is which old one (map-fields.ts), on two
// real IRS pairs from the corpus, against lists written by looking at both files' pages (pdftoppm) and
// field lists; and what a replacement carries (carry-settings.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/pdf/analysis/analyse.js';
import type { AnalysedField, Rect } from '../../src/pdf/types.js';
import { matchFields } from '../../src/modules/templates/map-fields.js';
import { carrySettings } from '../../src/modules/templates/carry-settings.js';
import { effectiveFields, type FieldSettings } from '../../src/modules/templates/field-settings.js';
import { corpusDir } from '../helpers/corpus.js';

const corpus = corpusDir();
const load = async (name: string) => analyse(readFileSync(path.join(corpus!, 'pdfs', name)));

/** Share of the listed pairs the matcher made, and the pairs it made that contradict the list. */
async function score(oldFile: string, newFile: string, same: [string, string][]) {
  const [before, after] = await Promise.all([load(oldFile), load(newFile)]);
  const { pairs } = matchFields(before.fields, after.fields);
  const made = new Map(pairs.map((p) => [p.old.pdfMeta.originalName, p.next.pdfMeta.originalName]));
  const listedOld = new Map(same);
  const listedNew = new Set(same.map(([, n]) => n));
  const right = same.filter(([o, n]) => made.get(o) === n).length;
  const wrong = pairs
    .filter((p) => {
      const o = p.old.pdfMeta.originalName;
      const n = p.next.pdfMeta.originalName;
      return listedOld.has(o) ? listedOld.get(o) !== n : listedNew.has(n);
    })
    .map((p) => `${p.old.pdfMeta.originalName} -> ${p.next.pdfMeta.originalName} (${p.by})`);
  return { right, share: right / same.length, wrong, pairs };
}

const W9 = 'topmostSubform[0].Page1[0]';
/**
 * W-9 (Rev. October 2018) -> (Rev. March 2024): every line kept its meaning; 2024 adds line 3b (a check
 * box) and moves everything below line 3a down by 12-36 points. Old -> new PDF name, by line.
 */
const W9_SAME: [string, string][] = [
  [`${W9}.f1_1[0]`, `${W9}.f1_01[0]`], // 1 Name
  [`${W9}.f1_2[0]`, `${W9}.f1_02[0]`], // 2 Business name
  ...[0, 1, 2, 3, 4, 5, 6].map((i): [string, string] => [
    `${W9}.FederalClassification[0].c1_1[${i}]`, // 3(a) individual, C corp, S corp, partnership, trust, LLC, other
    `${W9}.Boxes3a-b_ReadOrder[0].c1_1[${i}]`,
  ]),
  [`${W9}.FederalClassification[0].f1_3[0]`, `${W9}.Boxes3a-b_ReadOrder[0].f1_03[0]`], // LLC tax classification
  [`${W9}.FederalClassification[0].f1_4[0]`, `${W9}.Boxes3a-b_ReadOrder[0].f1_04[0]`], // Other (see instructions)
  [`${W9}.Exemptions[0].f1_5[0]`, `${W9}.f1_05[0]`], // 4 exempt payee code
  [`${W9}.Exemptions[0].f1_6[0]`, `${W9}.f1_06[0]`], // 4 FATCA exemption code
  [`${W9}.Address[0].f1_7[0]`, `${W9}.Address_ReadOrder[0].f1_07[0]`], // 5 Address
  [`${W9}.Address[0].f1_8[0]`, `${W9}.Address_ReadOrder[0].f1_08[0]`], // 6 City, state, ZIP
  [`${W9}.f1_9[0]`, `${W9}.f1_09[0]`], // Requester's name and address
  [`${W9}.f1_10[0]`, `${W9}.f1_10[0]`], // 7 Account numbers
  [`${W9}.SSN[0].f1_11[0]`, `${W9}.f1_11[0]`], // SSN, three parts
  [`${W9}.SSN[0].f1_12[0]`, `${W9}.f1_12[0]`],
  [`${W9}.SSN[0].f1_13[0]`, `${W9}.f1_13[0]`],
  [`${W9}.EmployerID[0].f1_14[0]`, `${W9}.f1_14[0]`], // EIN, two parts
  [`${W9}.EmployerID[0].f1_15[0]`, `${W9}.f1_15[0]`],
];

const P1 = 'topmostSubform[0].Page1[0]';
const P2 = 'topmostSubform[0].Page2[0]';
/**
 * 1040 (2010) -> (2024): a redesign. What a person sees as the same: the tax-year line, the name, SSN and
 * address block, the presidential campaign boxes, the four dependent rows and the refund's routing and
 * account numbers, and the "more than four dependents" box. Not listed: the amount lines (2010 splits dollars and cents into two fields and
 * numbers the lines differently; 2024 has one field per line) and the filing status and exemption boxes,
 * whose choices changed.
 */
const F1040_SAME: [string, string][] = [
  [`${P1}.p1-t1[0]`, `${P1}.f1_01[0]`], // tax year beginning
  [`${P1}.p1-t2[0]`, `${P1}.f1_02[0]`], // ending
  [`${P1}.p1-t3[0]`, `${P1}.f1_03[0]`], // ending year
  [`${P1}.p1-t4[0]`, `${P1}.f1_04[0]`], // your first name
  [`${P1}.p1-t5[0]`, `${P1}.f1_05[0]`], // last name
  [`${P1}.p1-t11[0]`, `${P1}.f1_06[0]`], // your SSN
  [`${P1}.p1-t6[0]`, `${P1}.f1_07[0]`], // spouse's first name
  [`${P1}.p1-t7[0]`, `${P1}.f1_08[0]`], // spouse's last name
  [`${P1}.p1-t14[0]`, `${P1}.f1_09[0]`], // spouse's SSN
  [`${P1}.p1-t8[0]`, `${P1}.Address_ReadOrder[0].f1_10[0]`], // home address
  [`${P1}.p1-t9[0]`, `${P1}.Address_ReadOrder[0].f1_11[0]`], // apt. no.
  [`${P1}.p1-t10[0]`, `${P1}.Address_ReadOrder[0].f1_12[0]`], // city, town or post office
  [`${P1}.c1_02_0_[0]`, `${P1}.c1_1[0]`], // presidential campaign: you
  [`${P1}.c1_03[0]`, `${P1}.c1_2[0]`], // spouse
  ...[
    ['p1-t20', 'p1-t21', 'p1-t24', 'c1_07'],
    ['p1-t25', 'p1-t26', 'p1-t30', 'c1_08'],
    ['p1-t31', 'p1-t32', 'p1-t35', 'c1_09'],
    ['p1-t36', 'p1-t37', 'p1-t40', 'c1_10'],
  ].flatMap((row, i) => {
    const n = 20 + i * 3;
    const newRow = `${P1}.Table_Dependents[0].Row${i + 1}[0]`;
    const oldRow = `${P1}.Line6cTable[0].#subform[${i + 1}]`;
    return [
      [`${oldRow}.${row[0]}[0]`, `${newRow}.f1_${n}[0]`], // dependent's name
      [`${oldRow}.${row[1]}[0]`, `${newRow}.f1_${n + 1}[0]`], // SSN
      [`${oldRow}.${row[2]}[0]`, `${newRow}.f1_${n + 2}[0]`], // relationship
      [`${oldRow}.${row[3]}[0]`, `${newRow}.c1_${14 + i * 2}[0]`], // child tax credit
    ] as [string, string][];
  }),
  [`${P1}.c1_01_0_[0]`, `${P1}.Dependents_ReadOrder[0].c1_13[0]`], // more than four dependents: check here
  [`${P2}.RoutingNoRules[0].f1_040_0_[0]`, `${P2}.RoutingNo[0].f2_25[0]`], // refund: routing number
  [`${P2}.AccountNumber[1].f1_040_0_[0]`, `${P2}.AccountNo[0].f2_26[0]`], // account number
];

describe.skipIf(!corpus)('mapping the fields of a new edition (corpus)', () => {
  it('W-9 2018 -> 2024: every field a person sees as the same is mapped, line 3b is new', async () => {
    const { share, wrong, pairs } = await score('irs-fw9-2018.pdf', 'irs-fw9-2024-macos-quartz-resave.pdf', W9_SAME);
    expect(wrong).toEqual([]);
    expect(share).toBe(1); // 22 of 22
    expect(pairs).toHaveLength(22);
    const after = await load('irs-fw9-2024-macos-quartz-resave.pdf');
    expect(
      matchFields((await load('irs-fw9-2018.pdf')).fields, after.fields).added.map((f) => f.pdfMeta.originalName),
    ).toEqual([`${W9}.Boxes3a-b_ReadOrder[0].c1_2[0]`]);
  });

  it('1040 2010 -> 2024 (a redesign): every field a person sees as the same is mapped, none to another', async () => {
    const { right, wrong, pairs } = await score('irs-f1040-2010-prefilled.pdf', 'irs-f1040-2024.pdf', F1040_SAME);
    // A redesign: new names, new places, no tooltips, captions reworded. The header pairs by labels alike
    // and the rows they anchor, the dependents table by its "(1) First name" column and its rows.
    expect(wrong).toEqual([]);
    expect(right).toBe(F1040_SAME.length); // 33 of 33
    // the contract's same-PDF-name rule pairs c1_11 (two different boxes; the PDF name is a key anyway)
    expect(pairs.filter((p) => p.by === 'pdf-name').map((p) => p.old.pdfMeta.originalName)).toEqual([`${P1}.c1_11[0]`]);
    // line numbers are not labels: line 12 of 2010 (business income) is not line 12 of 2024
    const byNew = new Map(pairs.map((p) => [p.next.pdfMeta.originalName, p]));
    expect(byNew.get(`${P1}.f1_57[0]`)).toBeUndefined();
    for (const p of pairs) expect(p.confidence).toBeGreaterThan(0);
    expect(byNew.get(`${P1}.f1_06[0]`)).toMatchObject({ by: 'label', confidence: 0.95 });
    expect(byNew.get(`${P1}.f1_05[0]`)?.by).toBe('similar-label');
    // "Your first name and initial" (2010, read past the margin's stray letter) against "… and middle initial"
    expect(byNew.get(`${P1}.f1_04[0]`)?.by).toBe('similar-label');
    expect(byNew.get(`${P1}.Address_ReadOrder[0].f1_12[0]`)?.by).toBe('neighbour');
  });
});

/** A field as the analyser reports one whose label is the caption printed beside it. */
const built = (originalName: string, type: 'text' | 'checkbox', rect: Rect, label: string | null): AnalysedField => ({
  name: originalName,
  type,
  required: false,
  label,
  labelSource: label === null ? 'none' : 'page',
  pdfMeta: { originalName, page: 1, rect },
  detail: { ft: type === 'text' ? 'Tx' : 'Btn', widgetCount: 1, inAcroFormFields: true },
});
const box = (x: number, y: number, w: number, h = 14): Rect => [x, y, x + w, y + h];

/**
 * A redesign built here: captions reworded ("Name of applicant" -> "Full name of applicant"), one broken
 * to a letter as the 1040 2010's are ("S"), every name changed, the block moved, a column added to a row
 * and to a table moved 100 points down, line numbers renumbered, a field replaced by another in its row.
 */
const OLD_EDITION: AnalysedField[] = [
  built('a.name', 'text', box(50, 700, 250), 'Name of applicant'),
  built('a.dob', 'text', box(320, 700, 130), 'Date of birth'),
  built('a.ref', 'text', box(470, 700, 90), 'Ref'),
  built('a.street', 'text', box(50, 670, 350), 'S'),
  built('a.unit', 'text', box(410, 670, 150), 'Unit'),
  built('a.city', 'text', box(50, 640, 350), 'T'),
  ...[0, 1, 2].flatMap((i) => [
    built(`a.kids.r${i}.name`, 'text', box(50, 560 - 12 * i, 200, 12), "(a) Child's name"),
    built(`a.kids.r${i}.age`, 'text', box(250, 560 - 12 * i, 60, 12), '(b) Age'),
    built(`a.kids.r${i}.school`, 'checkbox', box(330, 562 - 12 * i, 8, 8), null),
  ]),
  built('a.l12', 'text', box(480, 300, 80, 12), '. 12'),
  built('a.l13', 'text', box(480, 288, 80, 12), '. 13'),
  built('a.phone', 'text', box(50, 200, 150), 'Daytime phone'),
  built('a.email', 'text', box(220, 200, 180), 'Email'),
  built('a.firm', 'text', box(50, 100, 330), "Firm's name"),
  built('a.firmphone', 'text', box(400, 100, 160), 'Phone no.'),
];
const NEW_EDITION: AnalysedField[] = [
  built('b.f01', 'text', box(40, 690, 250), 'Full name of applicant'),
  built('b.f02', 'text', box(300, 690, 140), 'Birth date'),
  built('b.f03', 'text', box(460, 690, 110), 'Your reference (Ref)'),
  built('b.f04', 'text', box(40, 660, 350), 'Street address'),
  built('b.f05', 'text', box(400, 660, 170), 'Unit'),
  built('b.f06', 'text', box(40, 630, 290), 'City or town'),
  built('b.f07', 'text', box(340, 630, 230), 'Postcode'),
  ...[0, 1, 2].flatMap((i) => [
    built(`b.t.row${i}.f1`, 'text', box(60, 460 - 12 * i, 200, 12), '(a) Name of child'),
    built(`b.t.row${i}.f2`, 'text', box(260, 460 - 12 * i, 50, 12), '(b) Age in years'),
    built(`b.t.row${i}.c1`, 'checkbox', box(340, 462 - 12 * i, 8, 8), null),
    built(`b.t.row${i}.f3`, 'text', box(380, 460 - 12 * i, 100, 12), '(d) Grade'),
  ]),
  built('b.l12', 'text', box(480, 380, 80, 12), '. 12'),
  built('b.l13', 'text', box(480, 368, 80, 12), '. 13'),
  built('b.f20', 'text', box(50, 180, 150), 'Daytime phone'),
  built('b.f21', 'text', box(220, 180, 180), 'Identity PIN'),
  built('b.f22', 'text', box(50, 150, 150), 'Phone no.'),
  built('b.f23', 'text', box(50, 120, 330), "Firm's name"),
  built('b.f24', 'text', box(400, 120, 160), 'Phone no.'),
];

describe('mapping the fields of a redesign built here', () => {
  const { pairs, added, removed } = matchFields(OLD_EDITION, NEW_EDITION);
  const made = pairs.map((p) => [p.old.pdfMeta.originalName, p.next.pdfMeta.originalName, p.by]);

  it('pairs every field a person sees as the same, each by the sign that holds', () => {
    expect(made).toEqual([
      ['a.name', 'b.f01', 'similar-label'],
      ['a.dob', 'b.f02', 'similar-label'],
      ['a.ref', 'b.f03', 'row'],
      ['a.street', 'b.f04', 'row'],
      ['a.unit', 'b.f05', 'label'],
      ['a.city', 'b.f06', 'neighbour'],
      ...[0, 1, 2].flatMap((i) => [
        [`a.kids.r${i}.name`, `b.t.row${i}.f1`, 'similar-label'],
        [`a.kids.r${i}.age`, `b.t.row${i}.f2`, 'row'],
        [`a.kids.r${i}.school`, `b.t.row${i}.c1`, 'row'],
      ]),
      ['a.phone', 'b.f20', 'label'],
      ['a.firm', 'b.f23', 'label'],
      ['a.firmphone', 'b.f24', 'row'], // not the taxpayer's "Phone no." above it
    ]);
    for (const p of pairs) expect(p.confidence).toBeGreaterThan(0);
    for (const p of pairs) expect(p.confidence).toBeLessThan(1);
  });

  it('leaves renumbered lines, a replaced field and new columns unpaired', () => {
    expect(added.map((f) => f.pdfMeta.originalName)).toEqual([
      'b.f07',
      'b.t.row0.f3',
      'b.t.row1.f3',
      'b.t.row2.f3',
      'b.l12',
      'b.l13',
      'b.f21',
      'b.f22',
    ]);
    expect(removed.map((f) => f.pdfMeta.originalName)).toEqual(['a.l12', 'a.l13', 'a.email']);
  });
});

describe.skipIf(!corpus)('what a file replacement carries (W-9 2018 -> 2024)', () => {
  it('keeps keys, defaults and rules of mapped fields; reports kept, renamed, added and removed', async () => {
    const [before, after] = await Promise.all([load('irs-fw9-2018.pdf'), load('irs-fw9-2024-macos-quartz-resave.pdf')]);
    const settings: FieldSettings = Object.assign(Object.create(null), {
      [`${W9}.f1_1[0]`]: { name: 'name', required: true, description: 'Line 1' },
      [`${W9}.f1_10[0]`]: { default: 'none' },
      [`${W9}.SSN[0].f1_11[0]`]: { name: 'ssn_area' },
    });
    const { settings: next, report } = carrySettings(before.fields, settings, after.fields);
    const fields = effectiveFields(after.fields, next);
    const byPdf = new Map(fields.map((f) => [f.pdfMeta.originalName, f]));
    expect(byPdf.get(`${W9}.f1_01[0]`)).toMatchObject({ name: 'name', required: true, description: 'Line 1' });
    expect(byPdf.get(`${W9}.f1_10[0]`)).toMatchObject({ name: 'f1_10', default: 'none' });
    expect(byPdf.get(`${W9}.f1_11[0]`)?.name).toBe('ssn_area');
    // the analyser's keys of the old file survive too: "f1_2" stays the key of line 2
    expect(byPdf.get(`${W9}.f1_02[0]`)?.name).toBe('f1_2');
    expect(report.kept).toEqual([{ key: 'f1_10', originalName: `${W9}.f1_10[0]` }]);
    expect(report.renamedInPdf).toHaveLength(21);
    expect(report.renamedInPdf).toContainEqual({
      key: 'name',
      originalName: `${W9}.f1_01[0]`,
      from: `${W9}.f1_1[0]`,
      by: 'name-part',
      confidence: 0.9,
    });
    expect(report.added).toEqual([{ key: expect.any(String), originalName: `${W9}.Boxes3a-b_ReadOrder[0].c1_2[0]` }]);
    expect(report.removed).toEqual([]);
    expect(report.dropped).toEqual([]);
  });
});
