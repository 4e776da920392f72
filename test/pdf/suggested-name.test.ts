import { describe, expect, it } from 'vitest';
import {
  MAX_SUGGESTED_CHARS,
  suggestName,
  toSnakeCase,
  uniqueNames,
  withLabelTails,
  withSectionPrefixes,
} from '../../src/pdf/analysis/suggested-name.js';

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

  it('numbers hundreds of copies of one key in order', () => {
    const keys = uniqueNames(Array.from({ length: 500 }, () => 'amount'));
    expect(keys.slice(0, 3)).toEqual(['amount', 'amount_2', 'amount_3']);
    expect(keys[499]).toBe('amount_500');
    expect(new Set(keys).size).toBe(500);
  });

  it('prefixes shared keys with their sections when the sections tell them apart', () => {
    expect(withSectionPrefixes(['city', 'city', 'zip'], ['Debtor 1:', 'Debtor 2:', 'Debtor 1:'])).toEqual([
      'debtor_1_city',
      'debtor_2_city',
      'zip',
    ]);
    // one section for all: nothing told apart, left to _2
    expect(withSectionPrefixes(['au', 'au'], ['LE CONTRAT', 'LE CONTRAT'])).toEqual(['au', 'au']);
    // a field without a section keeps its key
    expect(withSectionPrefixes(['name', 'name', 'name'], ['Part I', undefined, 'Part II'])).toEqual([
      'part_i_name',
      'name',
      'part_ii_name',
    ]);
    // the words before a colon, a numbered question's number, a party's number kept when cut
    expect(withSectionPrefixes(['date', 'date'], ['Part 1: Give Details About You', '6. Within 90 days'])).toEqual([
      'part_1_date',
      '6_date',
    ]);
    const masters = ["Maître d'apprentissage n°1", "Maître d'apprentissage n°2"];
    expect(withSectionPrefixes(['prenom', 'prenom'], masters)).toEqual([
      'maitre_d_apprentissage_1_prenom',
      'maitre_d_apprentissage_2_prenom',
    ]);
    expect(withSectionPrefixes(['date_de_naissance', 'date_de_naissance'], masters)).toEqual([
      'maitre_1_date_de_naissance',
      'maitre_2_date_de_naissance',
    ]);
    // no room left: the key stays whole (and gets _2 later)
    const long = 'most_recent_passport_book_issue_date';
    expect(withSectionPrefixes([long, long], masters)).toEqual([long, long]);
    // the label was the heading: no prefix repeating it
    expect(withSectionPrefixes(['part_1_name', 'part_1_name'], ['Part 1', 'Part 1'])).toEqual([
      'part_1_name',
      'part_1_name',
    ]);
  });

  it('makes keys that only a cut made equal from where their labels differ', () => {
    const labels = [
      '2. Cannabis product inventory. Unpackaged. Line A. Opening inventory. Dried cannabis.',
      '2. Cannabis product inventory. Unpackaged. Line B. Additions to inventory. Dried cannabis.',
      'Déclare être inscrit sur la liste des sportifs de haut niveau : Oui',
      'Déclare être inscrit sur la liste des sportifs de haut niveau : Non',
      'City',
      'City',
    ];
    const keys = labels.map((l) => suggestName(l, 'x'));
    expect(keys[0]).toBe(keys[1]);
    expect(withLabelTails(keys, labels)).toEqual([
      '2_a_opening_inventory_dried_cannabis', // the shared words go first when room is short; the number stays
      '2_b_additions_to_inventory_dried',
      'declare_etre_inscrit_sur_la_liste_oui',
      'declare_etre_inscrit_sur_la_liste_non',
      'city', // equal labels: left to sections and _2
      'city',
    ]);
    for (const k of withLabelTails(keys, labels)) expect(k.length).toBeLessThanOrEqual(MAX_SUGGESTED_CHARS);
  });
});
