import { describe, expect, it } from 'vitest';
import { MAX_SUGGESTED_CHARS, suggestName, toSnakeCase, uniqueNames } from '../../src/pdf/analysis/suggested-name.js';

describe('suggested keys', () => {
  it('transliterates Latin letters with accents into lower snake_case ASCII', () => {
    expect(toSnakeCase('Nom et prénom ou dénomination')).toBe('nom_et_prenom_ou_denomination');
    expect(toSnakeCase('Straße, Hausnummer')).toBe('strasse_hausnummer');
    expect(toSnakeCase('N° SIRET de l’établissement')).toBe('no_siret_de_l_etablissement');
  });

  it('transliterates Cyrillic, Greek, Korean and Chinese (a word per character)', () => {
    expect(toSnakeCase('Фамилия')).toBe('familiya');
    expect(toSnakeCase('Ελληνικά')).toBe('ellinika');
    expect(toSnakeCase('성명')).toBe('seong_myeong');
    expect(toSnakeCase('基金代码')).toBe('ji_jin_dai_ma');
  });

  it('keeps the PDF name for Japanese (kana present), which a transliterator would read as Mandarin', () => {
    expect(suggestName('ふりがな（氏名）', 'name_kana')).toBe('name_kana');
  });

  it('cuts long labels at a word boundary within the limit', () => {
    const key = suggestName('1 Name (as shown on your income tax return). Name is required on this line', 'f1_1');
    expect(key).toBe('1_name_as_shown_on_your_income_tax');
    expect(key.length).toBeLessThanOrEqual(MAX_SUGGESTED_CHARS);
    expect(toSnakeCase('a'.repeat(60))).toHaveLength(MAX_SUGGESTED_CHARS);
  });

  it('falls back to the PDF name when the label leaves nothing', () => {
    expect(suggestName(null, 'Zone de texte 8')).toBe('zone_de_texte_8');
    expect(suggestName('***', 'f1_1')).toBe('f1_1');
    expect(suggestName(null, '表')).toBe('biao');
    expect(suggestName(null, '')).toBe('field');
  });

  it('makes keys unique in order with _2, _3, still within the limit', () => {
    expect(uniqueNames(['city', 'city', 'zip', 'city'])).toEqual(['city', 'city_2', 'zip', 'city_3']);
    const long = 'x'.repeat(MAX_SUGGESTED_CHARS);
    const [a, b] = uniqueNames([long, long]);
    expect(a).toBe(long);
    expect(b).toHaveLength(MAX_SUGGESTED_CHARS);
    expect(b.endsWith('_2')).toBe(true);
  });
});
