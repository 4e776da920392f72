// Suggested keys for detected fields. A detected field's label is whatever the page prints beside it:
// often a line number, a sentence of instructions and a parenthesis around the few words a person
// would name the field by. The key keeps those words (keyWordsOf), and fields that share them take a
// word from the party or section they sit under before falling back to _2, _3 (docs/decisions.md,
// "Suggested keys for detected fields").
import { MAX_SUGGESTED_CHARS, suggestName, toSnakeCase, uniqueNames } from '../analysis/suggested-name.js';
import type { Rect } from '../types.js';

/** A line or item number before the words: "1", "12a", "10)", "A)", "(3)", "b.", "©". */
const LEADING_MARK = /^\s*(?:\(?\d{1,3}[a-z]?[.)]?\*?|\(?[a-z][.)]|\([a-z0-9]{1,3}\)|[©•▶►]|\$)(?=\s)\s*/iu;
/** A currency sign after the words ("Amount $"). */
const TRAILING_MARK = /\s+[$€£%©]$/u;
/** Where the head words end: a parenthesis, a new sentence, a question mark, or an instruction. */
const HEAD_END =
  /\s\(|[.?!](?:\s|$)|,?\s+(?:if any|if applicable|if different|if known|see instructions|see page|optional|from the|from line|from above|as shown|you are|you want|s'il y a lieu|le cas échéant|falls zutreffend)\b|[:;]\s/iu;
/** Words of a parenthesis that say how, not what ("(optional)", "(mm/dd/yyyy)", "(remarks, etc)"). */
const ASIDE =
  /^(?:see|voir|siehe|if|any|optional|required|mandatory|print|please|facultatif|obligatoire|mm|dd|yy|yyyy|jj|aaaa|month|day|year)$/iu;

/** Words that tell a person what to do rather than name the field. */
const INSTRUCTION_VERB =
  /^(?:type or print|print or type|enter|list|write|provide|indicate|insert|specify|indiquez|inscrivez|précisez|angeben|eintragen)\s+(?:your\s+|the\s+)?/iu;
const TRAILING_HERE = /\s+(?:here|ici|hier)$/iu;
/** A preposition that joins a sentence to the blank before or after it ("with a ... of"). */
const LEADING_LINK = /^(?:with|and|of|avec|et)\s+(?:(?:a|an|the|un|une|le|la|les)\s+)?(?=\p{L})/iu;
const TRAILING_LINK = /\s+(?:of|for|de|du|des|von|für)$/iu;
/** Filler words left out when a key would otherwise be cut short. */
const FILLER = new Set(
  'a an the of and or to for in on at by with from as is are be your which who that de du des la le les l d et ou en pour par au aux der die das und oder von zu'.split(
    ' ',
  ),
);

/** The letters of a caption printed in capitals are mostly upper case ("DATE OF bIRTH", "LiMA"). */
function inCapitals(text: string): boolean {
  const upper = (text.match(/\p{Lu}/gu) ?? []).length;
  const lower = (text.match(/\p{Ll}/gu) ?? []).length;
  return upper > lower;
}

/**
 * The words of a caption a key is named by: without its line number, its parenthesis, the sentences and
 * instructions after the first phrase, an opening "Enter"/"List" and a closing "here"; abbreviations
 * written out (N° / No. -> number, numéro before French "d'"/"de"; Ph.D. -> PhD; e-mail -> email).
 * The whole caption when nothing would be left.
 */
export function keyWordsOf(label: string): string {
  // a button's "question: answer" (buttonCaption) keeps its answer after the question's head words
  const answer = /^(.+?):\s(\p{L}{1,12})$/u.exec(label.trim());
  if (answer) return `${keyWordsOf(answer[1])} ${answer[2]}`;
  let text = label.replace(/\s+/g, ' ').trim();
  // ", 20__" after a date: the year's last digits
  if (/^[,\s]*(?:19|20)$/u.test(text)) return 'year';
  if (inCapitals(text)) text = text.toLowerCase();
  // a sentence's words before the blank ("(“Buyer”) with a mailing address of ____"): what it names
  text = text.replace(/^\([^)]{1,30}\)\s+(?=\p{L})/u, '').replace(LEADING_LINK, '');
  text = text
    .replace(/\b[Nn][°º]\s?(?=d['’]|de\b|du\b)/gu, 'numéro ')
    .replace(/\b[Nn](?:[°º]|o\.)(?=\s|$)/gu, 'number')
    .replace(/\b(\p{L}{1,2})\.(\p{L})\.(?:(\p{L})\.)?/gu, '$1$2$3') // Ph.D., U.S.A.
    .replace(/\b([Ee])-(?=mail\b)/giu, '$1');
  for (let i = 0; i < 3; i++) text = text.replace(LEADING_MARK, '');
  // "... here © 7": the arrow and the line number after the words
  text = text.replace(/\s+[©▶►](?:\s+\d{1,3}[a-z]?)?$/u, '');
  // "If you meet both conditions, write “Exempt” here": the word to write names the field
  const written = /^if\s[^,]{3,80},\s+(?:write|enter|type)\s+[“"]([^”"]{1,30})[”"]/iu.exec(text);
  if (written) return written[1];
  // "Other (remarks, etc)": a one-word head is named by the words of its parenthesis
  const explained = /^(\p{L}+)\s+\(([^)]{1,30})\)$/u.exec(text);
  if (explained) {
    const words = explained[2].split(/[^\p{L}]+/u).filter((w) => w.length >= 3 && !/^etc$/iu.test(w));
    if (words.length > 0 && words.length <= 3 && !words.some((w) => ASIDE.test(w)))
      return `${explained[1]} ${words.join(' ')}`;
  }
  const end = HEAD_END.exec(text);
  if (end && end.index > 0) text = text.slice(0, end.index);
  // "Business name/disregarded entity name": the first name given is the field's
  const slash = /^(\p{L}+\s+\p{L}[^/]*?)\s*\/\s*\p{L}/u.exec(text);
  if (slash) text = slash[1];
  // "City or town, state, and ZIP code": an alternative inside a list elaborates its item
  text = text.replace(/^(\p{L}+) or \p{L}+(?=, )/u, '$1');
  // "Name of physician or other health care professional": an alternative of several words elaborates
  const alternative = /^(\S+(?:\s+\S+)+?)\s+or\s+\S+\s+\S+/iu.exec(text);
  if (alternative) text = alternative[1];
  text = text
    .replace(INSTRUCTION_VERB, '')
    .replace(TRAILING_HERE, '')
    // "What was the injury or illness?": the question's subject names the answer
    .replace(/^(?:what|which)\s+(?:is|was|are|were)\s+(?:the|your)\s+(?=\p{L})/iu, '')
    .replace(/^(?:the|this|a|an)\s+/iu, '')
    // "date of this bill of sale": a demonstrative after a preposition says nothing a key needs
    .replace(/\b(of|for|on|in|to)\s+(?:this|that|these|those)\s+(?=\p{L})/giu, '$1 ');
  for (let i = 0; i < 2; i++) text = text.replace(TRAILING_MARK, '');
  text = text
    .replace(/\s+\d\)$/u, '') // a footnote call ("rémunérations brutes 2)")
    .replace(/\(\p{Ll}{1,2}\)/gu, '') // salarié(e), number(s)
    .replace(/[\s,;:–-]+$/u, '')
    .replace(TRAILING_LINK, '')
    .trim();
  return /\p{L}/u.test(text) ? text : label;
}

/** A key from a caption's head words; filler words go first when the key would be cut. */
export function keyFromLabel(label: string | null, fallback: string): string {
  if (!label) return suggestName(null, fallback);
  const head = keyWordsOf(label);
  const words = toSnakeCase(head).split('_');
  const uncut = head
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join('_');
  if (uncut.length > MAX_SUGGESTED_CHARS && words.length > 2) {
    const kept = head.split(/\s+/).filter((w, i) => i === 0 || !FILLER.has(w.toLowerCase()));
    return suggestName(kept.join(' '), fallback);
  }
  return suggestName(head, fallback);
}

const BUTTONS = new Set(['checkbox', 'radio']);

/** Words that qualify a noun rather than name a field: "LAST" under "NAME" is the last name. */
const QUALIFIER = new Set(
  'first last middle maiden given family full home work office business mobile cell day daytime evening night street mailing billing shipping primary secondary'.split(
    ' ',
  ),
);
/** A heading naming whose details follow ("Emergency contact information"): its fields are that party's. */
const PARTY_HEADING = /^(.+?)\s+(?:information|info|details|informations|renseignements|coordonnées|angaben|daten)$/iu;

/**
 * The words a field is named by once its block's heading is read with its caption (captions printed under
 * writing lines): a qualifier goes before the heading's noun ("LAST" under "NAME" -> last name), and a
 * party's details take the party ("PHONE" under "EMERGENCY CONTACT INFORMATION" -> emergency contact phone).
 */
function withHeading(label: string, heading: string | undefined): string {
  if (!heading) return label;
  const head = keyWordsOf(heading).toLowerCase();
  const own = keyWordsOf(label).toLowerCase();
  const party = PARTY_HEADING.exec(head);
  if (party) return own.startsWith(`${party[1]} `) ? own : `${party[1]} ${own}`;
  if (QUALIFIER.has(own) && /^\p{L}+$/u.test(head)) return `${own} ${head}`;
  return label;
}

/** What a field's place says beyond its caption, for its key only (never shown, never returned). */
export interface KeyContext {
  /** the heading of the block of writing lines whose captions are printed under the lines ("NAME") */
  heading?: string;
  /** a check box's row question ("Mobile" before "☐ Concentrateur ☐ Gaz comprimé") */
  question?: string;
  /** the signature caption a date sits beside on its line ("Buyer's Signature") */
  signed?: string;
}

/** What the keys need of a detection. */
export interface KeyInput {
  page: number;
  rect: Rect;
  label: string | null;
  /** the field's type, its key when it has no caption */
  type: string;
  context?: KeyContext;
}

/**
 * The word a field's place gives it: the caption of the nearest field above it in its column, when
 * that caption names a party ("Buyer's Signature" -> buyer, "Facility" -> facility): a possessive or
 * a single word. Fields whose own key is shared are looked through (the rows of one block).
 */
function partyAbove(all: KeyInput[], keys: string[], shared: Set<string>, i: number): string {
  const r = all[i].rect;
  const h = r[3] - r[1];
  const above: number[] = [];
  for (let j = 0; j < all.length; j++) {
    const d = all[j];
    if (j === i || d.page !== all[i].page || d.rect[1] < r[3] - 1 || d.rect[1] - r[3] >= 6 * Math.max(h, 12)) continue;
    if (Math.min(d.rect[2], r[2]) - Math.max(d.rect[0], r[0]) > 0) above.push(j);
  }
  above.sort((a, b) => all[a].rect[1] - all[b].rect[1]);
  for (const j of above) {
    const d = all[j];
    if (shared.has(keys[j])) continue;
    const label = d.label ? keyWordsOf(d.label) : '';
    const possessive = /^(\p{L}+)['’]s\s/u.exec(label);
    if (possessive) return toSnakeCase(possessive[1]);
    // a single word over a text field's block names it when the block lies under its box
    const slack = Math.max(h, 10);
    const within = d.rect[0] <= r[0] + slack && d.rect[2] >= r[2] - slack;
    if (/^\p{L}{3,}$/u.test(label) && within && !BUTTONS.has(all[i].type)) return toSnakeCase(label);
    return '';
  }
  return '';
}

/** Boxes side by side on one row: their heights overlap by more than half. */
const sameRow = (a: Rect, b: Rect) =>
  Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > 0.5 * Math.min(a[3] - a[1], b[3] - b[1]);

/** The word that ends a span on a row ("période du ____ au ____", "From ____ to ____"). */
const SPAN_END = /^(?:au|à|a|to|through|until|till|bis)$/iu;
const SPAN_START = /^(?:du|de|from|vom|von|dal)\W*$/iu;

/** "au" after "période du ____": the span's end is named by its start's words ("période au"). */
function withRowStart(found: KeyInput[], i: number, label: string): string {
  const d = found[i];
  // (only a short caption can be a span's end word)
  const own = label.length <= 12 ? keyWordsOf(label) : '';
  if (!SPAN_END.test(own)) return label;
  const before = found
    .filter((o) => o !== d && o.page === d.page && o.label && sameRow(o.rect, d.rect) && o.rect[2] <= d.rect[0] + 1)
    .sort((a, b) => b.rect[2] - a.rect[2])[0];
  const start = before?.label ? keyWordsOf(before.label) : '';
  // "From ____ To ____" has no words to share
  return start && !SPAN_START.test(start) ? `${start} ${own}` : label;
}

/** `key` with `word` after it, its own words cut so the whole fits the key length. */
function suffixed(key: string, word: string): string {
  const room = MAX_SUGGESTED_CHARS - word.length - 1;
  let head = key;
  while (head.length > room && head.includes('_')) head = head.slice(0, head.lastIndexOf('_'));
  return `${head.slice(0, room)}_${word}`;
}

/**
 * A check box's option with a blank to write in after it on its row ("☐ Other. ______"): both were
 * given the option's words. The box keeps them; the blank is the option's description (its date).
 */
function withWriteIns(found: KeyInput[], keys: string[]): string[] {
  return keys.map((k, i) => {
    const d = found[i];
    if (BUTTONS.has(d.type) || !/[a-z]/.test(k)) return k;
    const box = found.some(
      (o, j) =>
        o.type === 'checkbox' &&
        keys[j] === k &&
        o.page === d.page &&
        sameRow(o.rect, d.rect) &&
        o.rect[2] <= d.rect[0],
    );
    return box ? suffixed(k, d.type === 'date' ? 'date' : 'description') : k;
  });
}

/** The caption of a signature field left of a date on its row ("Signature ____ Date ____"). */
function signatureLeft(found: KeyInput[], i: number): string | undefined {
  const d = found[i];
  if (d.type !== 'date') return undefined;
  const sig = found
    .filter(
      (o) =>
        o.type === 'signature' && o.page === d.page && o.label && sameRow(o.rect, d.rect) && o.rect[2] <= d.rect[0],
    )
    .sort((a, b) => b.rect[2] - a.rect[2])[0];
  return sig?.label ?? undefined;
}

/**
 * Keys for detections in reading order, unique among themselves and against `taken` (the form's own keys).
 * Keys several fields share take the party word above each (partyAbove) when that tells them apart.
 */
export function detectionKeys(found: KeyInput[], taken: string[]): string[] {
  const base = withWriteIns(
    found,
    found.map((d, i) =>
      keyFromLabel(
        d.label && withRowStart(found, i, withHeading(d.label, d.context?.heading)),
        d.type === 'radio' ? 'choice' : d.type,
      ),
    ),
  );
  const count = new Map<string, number>();
  for (const k of base) count.set(k, (count.get(k) ?? 0) + 1);
  const shared = new Set([...count].filter(([, n]) => n > 1).map(([k]) => k));
  const keys = base.map((k, i) => {
    if (!shared.has(k) || !/[a-z]/.test(k)) return k;
    const { question, signed } = found[i].context ?? {};
    const signature = signed ?? signatureLeft(found, i);
    const party = question
      ? toSnakeCase(keyWordsOf(question))
      : signature
        ? toSnakeCase(keyWordsOf(signature))
        : partyAbove(found, base, shared, i);
    const prefixed = party && !k.startsWith(`${party}_`) && party !== k ? `${party}_${k}` : k;
    return prefixed.length <= MAX_SUGGESTED_CHARS ? prefixed : k;
  });
  return uniqueNames([...taken, ...keys]).slice(taken.length);
}
