// The key rules of detected fields (detection-keys.ts), each on captions as forms print them.
import { describe, expect, it } from 'vitest';
import { detectionKeys, keyFromLabel, keyWordsOf } from '../../src/pdf/detect/detection-keys.js';
import type { Rect } from '../../src/pdf/types.js';

describe('keyWordsOf: the words of a caption a key is named by', () => {
  it('drops leading line and item numbers and letters', () => {
    expect(keyWordsOf('1) Full name')).toBe('Full name');
    expect(keyWordsOf('12a Total amount')).toBe('Total amount');
    expect(keyWordsOf('A) rémunérations brutes')).toBe('rémunérations brutes');
    expect(keyWordsOf('(3) Employer')).toBe('Employer');
    expect(keyWordsOf('6 City, state, and ZIP code')).toBe('City, state, and ZIP code');
  });

  it('keeps the head words before a parenthesis, a new sentence or an instruction', () => {
    expect(keyWordsOf('1 Name (as shown on your income tax return). Name is required on this line')).toBe('Name');
    expect(keyWordsOf('Exempt payee code (if any)')).toBe('Exempt payee code');
    expect(keyWordsOf('Other (see instructions)')).toBe('Other');
    expect(keyWordsOf('10) Case number from the Log')).toBe('Case number');
    expect(keyWordsOf('7 List account number(s) here (optional)')).toBe('account number');
    expect(keyWordsOf('State Reporting No. as Shown on Employer’s State Contribution Returns')).toBe(
      'State Reporting number',
    );
    expect(keyWordsOf('Business name/disregarded entity name, if different from above')).toBe('Business name');
    expect(keyWordsOf('Type/Model')).toBe('Type/Model');
  });

  it('keeps a button’s answer after its question', () => {
    expect(keyWordsOf('Système de remplissage (O2): non')).toBe('Système de remplissage non');
  });

  it('reads captions in capitals as words, and writes out abbreviations', () => {
    expect(keyWordsOf('DATE OF bIRTH')).toBe('date of birth');
    expect(keyWordsOf('PH.D..')).toBe('phd');
    expect(keyWordsOf('SOCIAL SECURITY NO. (MANDATORY)')).toBe('social security number');
    expect(keyWordsOf('N° d’assurance sociale')).toBe('numéro d’assurance sociale');
    expect(keyWordsOf('E-Mail')).toBe('EMail');
    expect(keyWordsOf('OPAS 7')).toBe('opas 7');
  });

  it('reads what a sentence running into a blank names', () => {
    expect(keyWordsOf('(“Buyer”) with a mailing address of')).toBe('mailing address');
  });

  it('keeps the caption when nothing with a letter would be left', () => {
    expect(keyWordsOf('(1)')).toBe('(1)');
  });
});

describe('keyFromLabel', () => {
  it('makes snake_case keys and drops filler words before cutting a long one', () => {
    expect(keyFromLabel('3) Date of birth', 'date')).toBe('date_of_birth');
    expect(keyFromLabel('Married, but withhold at higher Single rate.', 'checkbox')).toBe(
      'married_but_withhold_higher_single_rate',
    );
    expect(keyFromLabel(null, 'signature')).toBe('signature');
  });
});

describe('detectionKeys', () => {
  const d = (label: string | null, rect: Rect, type = 'text') => ({ page: 1, rect, label, type });

  it('prefixes a shared key with the party named above it, and a date with the signature beside it', () => {
    const keys = detectionKeys(
      [
        d('Buyer’s Signature', [100, 700, 300, 716], 'signature'),
        d('Print Name', [100, 670, 300, 686]),
        d('Seller’s Signature', [100, 600, 300, 616], 'signature'),
        d('Print Name', [100, 570, 300, 586]),
        d('Date', [400, 700, 500, 716], 'date'),
        d('Date', [400, 600, 500, 616], 'date'),
      ],
      [],
    );
    expect(keys).toEqual([
      'buyer_s_signature',
      'buyer_print_name',
      'seller_s_signature',
      'seller_print_name',
      'buyer_s_signature_date',
      'seller_s_signature_date',
    ]);
  });

  it('takes a one-word caption over a block of text fields (Facility: street, city)', () => {
    const keys = detectionKeys(
      [
        d('Street', [340, 440, 570, 456]),
        d('City', [330, 416, 440, 432]),
        d('Facility', [336, 208, 576, 223]),
        d('Street', [340, 177, 577, 193]),
        d('City', [328, 151, 455, 166]),
      ],
      [],
    );
    expect(keys).toEqual(['street', 'city', 'facility', 'facility_street', 'facility_city']);
  });

  it('keeps other shared keys unique with _2, and a year after a date is the year', () => {
    const keys = detectionKeys(
      [
        d('Date', [100, 700, 200, 716], 'date'),
        d(', 20', [210, 700, 240, 716]),
        d('Date', [100, 600, 200, 616], 'date'),
      ],
      [],
    );
    expect(keys).toEqual(['date', 'year', 'date_2']);
  });

  it('gives the blank after a check box option its description, and the box the option', () => {
    const keys = detectionKeys([d('Other.', [160, 292, 172, 304], 'checkbox'), d('Other.', [220, 292, 534, 307])], []);
    expect(keys).toEqual(['other', 'other_description']);
  });

  it('reads a qualifier under a heading, and a party’s details under its heading', () => {
    const h = (label: string, rect: Rect, heading: string) => ({ ...d(label, rect), context: { heading } });
    const keys = detectionKeys(
      [
        h('LAST', [30, 401, 273, 417], 'NAME'),
        h('CITY', [30, 377, 273, 390], 'ADDRESS'),
        h('PHONE', [339, 281, 582, 297], 'EMERGENCY CONTACT INFORMATION'),
      ],
      [],
    );
    expect(keys).toEqual(['last_name', 'city', 'emergency_contact_phone']);
  });

  it('tells apart check boxes with the same words by their row’s question', () => {
    const q = (rect: Rect, question: string) => ({ ...d('Concentrateur', rect, 'checkbox'), context: { question } });
    expect(detectionKeys([q([54, 444, 63, 453], 'Fixe'), q([280, 444, 289, 453], 'Mobile')], [])).toEqual([
      'fixe_concentrateur',
      'mobile_concentrateur',
    ]);
  });

  it('never reuses a key the form already has', () => {
    expect(detectionKeys([d('Name', [0, 0, 100, 16])], ['name'])).toEqual(['name_2']);
  });
});
