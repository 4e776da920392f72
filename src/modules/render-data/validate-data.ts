// Render data -> engine FillValues: type checks, strict/non-strict rules, formatting. Pure: no I/O, no HTTP.
//
// Decisions (documented for the API docs):
// - Keys are the schema `name` or `pdfMeta.originalName`; a key that is one field's name and another's
//   originalName means the name. Sending both keys for one field is a VALIDATION_ERROR (not last-wins).
// - Wrong types are errors in both modes: a numeric string for a number field, a number for a text field.
// - A value for a read-only field is ignored with a warning; in strict mode it is a VALIDATION_ERROR
//   (strict promises that everything sent is used).
// - A field the form computes (AnalysedField.computed) is the form's while its scripts run (options.calculate,
//   default true): a value for it is ignored with a COMPUTED_FIELD_IGNORED warning, and in strict mode every
//   such key is refused in one VALIDATION_ERROR (details.errors). With calculate false it takes data like any
//   field, read-only or not (the caller computes instead of the form); team defaults follow the same rule.
// - `null` leaves a field empty; for a required field it counts as missing.
// - maxLength is counted in Unicode code points on the value as sent, before any display format; for a
//   number field, on the formatted text (what /V holds and the page shows: "1,234.50" is 8).
// - No single text value may exceed MAX_TEXT_CODE_POINTS, in either mode; signature images are capped
//   at MAX_IMAGE_BYTES decoded. Warnings are capped at MAX_WARNINGS, then summarised.
// - Multi-select list boxes take an array of option values (or one string); duplicates are dropped.
// - A radio group takes one of its options or the appearance state name of a button (the option that
//   state selects); options are tried first.
// - Signature: a data URL must be image/png or image/jpeg with base64 content that is a PNG or JPEG
//   (the magic bytes decide the format); a bare base64 string counts as an image only if it decodes to
//   PNG or JPEG bytes, otherwise it is text.
// - A text field whose value does not fit its AFSpecial / mask / AFTime format is written as sent,
//   with a warning.
// - The team's field settings (TemplateField): a constant is refused in data (both modes) and always
//   drawn; a hidden field is treated like a read-only one; a default fills a key the data omits (null
//   stays an explicit "empty"), formatted like data; constants and defaults count as given for
//   `required`.

import type { AnalysedField, FillValue } from '../../pdf/types.js';
import type { TemplateField } from './template-field.js';
import { isSupportedLocale, isValidTimeZone, localeDateShape } from './date-parse.js';
import { formatDateValue, formatNumberValue, formatTextValue, type FormatContext } from './format-value.js';
import { DataValidationError, type ValidationProblem } from '../../errors.js';

export interface ValidateOptions {
  strict: boolean;
  locale: string;
  timezone: string;
  /** keys of earlier versions of the template, with the last version each belonged to (for messages) */
  formerKeys?: ReadonlyMap<string, number>;
  /** the form's scripts run (default true): computed fields are theirs, not the caller's */
  calculate?: boolean;
  /**
   * ICU accepted this locale and time zone before (the offline CLI keeps its answers, cli/intl-answers.ts):
   * they are not checked again, which would cost a one-shot process its first Intl call (~25 ms).
   */
  knownLocaleAndZone?: boolean;
}

export interface ValidatedData {
  /** Keyed by pdfMeta.originalName; a null-prototype object (any key is safe, "__proto__" included). */
  values: Record<string, FillValue>;
  warnings: string[];
  /** keys that are no field's (ignored, each with a warning) */
  unknownKeys: string[];
}

/** Longest text value accepted for any field, whatever its maxLength: far above any real form value. */
export const MAX_TEXT_CODE_POINTS = 100_000;
/** Largest decoded signature image. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_WARNINGS = 100;
const MAX_LISTED_OPTIONS = 10;

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A user string cut for messages: a 10 MB key or value must not come back in an error body. */
function clip(s: string, max: number): string {
  const cps = Array.from(s.slice(0, max * 2 + 2));
  return cps.length > max ? `${cps.slice(0, max).join('')}…` : s;
}
const quote = (s: string) => JSON.stringify(clip(s, 40));

function fail(field: string, expected: string, received: string, message?: string): never {
  const article = /^(string|number|boolean|date)\b/.test(expected)
    ? 'a '
    : /^(array|object|image)\b/.test(expected)
      ? 'an '
      : '';
  throw new DataValidationError(
    { field, expected, received },
    message ?? `Field "${field}" expects ${article}${expected}, received ${received}`,
  );
}

/** Code points in s, counting no further than stopAfter + 1 (cheap on huge strings). */
function codePoints(s: string, stopAfter = Infinity): number {
  let n = 0;
  for (let i = 0; i < s.length && n <= stopAfter; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** The first max code points of s (never splits a surrogate pair). */
function cutCodePoints(s: string, max: number): string {
  let end = 0;
  for (let n = 0; n < max && end < s.length; n++) {
    const c = s.charCodeAt(end);
    end += c >= 0xd800 && c <= 0xdbff && end + 1 < s.length && (s.charCodeAt(end + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return s.slice(0, end);
}

function expectString(key: string, value: unknown, expected = 'string'): string {
  if (typeof value !== 'string') fail(key, expected, jsonType(value));
  if (value.length > MAX_TEXT_CODE_POINTS && codePoints(value, MAX_TEXT_CODE_POINTS) > MAX_TEXT_CODE_POINTS) {
    fail(
      key,
      `string of at most ${MAX_TEXT_CODE_POINTS} characters`,
      `string of more than ${MAX_TEXT_CODE_POINTS} characters`,
    );
  }
  return value;
}

function optionsExpected(options: string[], multi: boolean): string {
  const listed = options.slice(0, MAX_LISTED_OPTIONS).map(quote).join(', ');
  const more = options.length > MAX_LISTED_OPTIONS ? ` (and ${options.length - MAX_LISTED_OPTIONS} more)` : '';
  const base = options.length === 0 ? 'no value (the field has no options)' : `one of ${listed}${more}`;
  return multi ? `${base}, or an array of them` : base;
}

// ---- signatures ----------------------------------------------------------------------------------

const IMAGE_EXPECTED = 'string (text, or a base64 or data:image/png / data:image/jpeg PNG or JPEG image)';

function sniffImage(bytes: Uint8Array): 'png' | 'jpeg' | null {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return null;
}

/** Strict base64 (standard or URL alphabet, whitespace allowed) -> bytes; null when it is not base64. */
function decodeBase64(key: string, text: string): Uint8Array | null {
  const b64 = text.replace(/\s+/g, '');
  if (b64.length === 0 || b64.length % 4 === 1 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) return null;
  if (Math.floor((b64.length * 3) / 4) > MAX_IMAGE_BYTES + 2) {
    fail(key, `image of at most ${MAX_IMAGE_BYTES} bytes`, `image of about ${Math.floor((b64.length * 3) / 4)} bytes`);
  }
  return new Uint8Array(Buffer.from(b64, 'base64')); // a copy: never hand out Node's shared pool
}

function signatureValue(key: string, value: unknown): FillValue {
  if (typeof value !== 'string') fail(key, IMAGE_EXPECTED, jsonType(value));
  if (/^data:/i.test(value)) {
    const comma = value.indexOf(',');
    if (comma < 0 || comma > 200) fail(key, IMAGE_EXPECTED, 'a malformed data URL');
    const [mime = '', ...params] = value
      .slice(5, comma)
      .toLowerCase()
      .split(';')
      .map((p) => p.trim());
    if (mime !== 'image/png' && mime !== 'image/jpeg' && mime !== 'image/jpg') {
      fail(key, IMAGE_EXPECTED, `a data URL of type ${clip(mime || 'text/plain', 60)}`);
    }
    const bytes = params.includes('base64') ? decodeBase64(key, value.slice(comma + 1)) : null;
    if (!bytes) fail(key, IMAGE_EXPECTED, 'a data URL without valid base64 content');
    const format = sniffImage(bytes);
    if (!format) fail(key, IMAGE_EXPECTED, `a data URL whose content is not a PNG or JPEG image`);
    return { kind: 'image', bytes, format };
  }
  // Bare base64: only a string that starts like a PNG ("iVBORw0KGgo") or JPEG ("/9j/") is decoded.
  const head = value.slice(0, 64).trimStart();
  if (head.startsWith('iVBORw0KGgo') || head.startsWith('/9j/')) {
    const bytes = decodeBase64(key, value);
    const format = bytes && sniffImage(bytes);
    if (bytes && format) return { kind: 'image', bytes, format };
  }
  return { kind: 'text', text: expectString(key, value, IMAGE_EXPECTED) };
}

// ---- one value -----------------------------------------------------------------------------------

interface Ctx extends FormatContext {
  strict: boolean;
  warn: (message: string) => void;
}

function textValue(key: string, field: AnalysedField, value: unknown, ctx: Ctx): FillValue {
  let text = expectString(key, value);
  const max = field.maxLength;
  if (typeof max === 'number' && max > 0 && text.length > max) {
    const length = codePoints(text);
    if (length > max) {
      if (ctx.strict) fail(key, `string of at most ${max} characters`, `string of ${length} characters`);
      text = cutCodePoints(text, max);
      ctx.warn(`Field "${key}" was cut to its maximum length of ${max} characters (received ${length})`);
    }
  }
  if (text === '') return { kind: 'text', text };
  const formatted = formatTextValue(text, field.detail.format, ctx);
  if (formatted.ok) return { kind: 'text', text: formatted.text };
  ctx.warn(`Field "${key}" was written as sent: the value does not fit the field's format (${formatted.reason})`);
  return { kind: 'text', text };
}

/**
 * A number field's /MaxLen bounds the text it shows (the formatted value, which /V holds): over it,
 * strict mode refuses the number; non-strict cuts the text as for a text field, with a warning.
 */
function fitNumber(key: string, field: AnalysedField, text: string, ctx: Ctx): string {
  const max = field.maxLength;
  if (typeof max !== 'number' || max <= 0 || text.length <= max) return text;
  const length = codePoints(text);
  if (length <= max) return text;
  if (ctx.strict) fail(key, `number shown in at most ${max} characters`, `${quote(text)} (${length} characters)`);
  ctx.warn(`Field "${key}" was cut to its maximum length of ${max} characters (received ${length}: ${quote(text)})`);
  return cutCodePoints(text, max);
}

function choiceValue(key: string, field: AnalysedField, value: unknown): FillValue {
  const options = field.options ?? [];
  const multi = field.type === 'dropdown' && field.detail.multiSelect === true;
  const expected = optionsExpected(options, multi);
  // A radio button may also be named by its appearance state (what pdf.js and pdftk report): that
  // option is chosen, so buttons sharing an export value stay apart.
  const states = field.type === 'radio' ? (field.detail.optionStates ?? []) : [];
  const check = (v: unknown): string => {
    if (typeof v !== 'string') fail(key, expected, jsonType(v));
    if (options.includes(v)) return v;
    const byState = states.indexOf(v);
    if (byState >= 0 && byState < options.length) return options[byState];
    return fail(key, expected, quote(v));
  };
  if (multi) {
    if (Array.isArray(value)) return { kind: 'choices', values: [...new Set(value.map(check))] };
    return { kind: 'choices', values: [check(value)] };
  }
  if (field.type === 'dropdown' && field.detail.editable) {
    return { kind: 'choice', value: expectString(key, value, 'string (an option or any text)') };
  }
  return { kind: 'choice', value: check(value) };
}

function fillValue(key: string, field: AnalysedField, value: unknown, ctx: Ctx): FillValue {
  if (value === null) return { kind: 'clear' };
  switch (field.type) {
    case 'text':
      return textValue(key, field, value, ctx);
    case 'checkbox': {
      // A checkbox whose widgets carry different on-states (a Yes/No pair built as one field, the IRS
      // filing status) takes the state to turn on; the public schema lists them as its options.
      // `true` would have to guess one of them (and could mean "No"), so it is refused in both modes.
      const states = field.detail.onStates ?? [];
      if (states.length > 1) {
        const expected = `one of ${states.map(quote).join(', ')} (the state to turn on), or false or null to clear it`;
        if (value === false) return { kind: 'check', checked: false };
        if (typeof value !== 'string') fail(key, expected, value === true ? 'true' : jsonType(value));
        if (!states.includes(value)) fail(key, expected, quote(value));
        return { kind: 'choice', value };
      }
      if (typeof value !== 'boolean') fail(key, 'boolean', jsonType(value));
      return { kind: 'check', checked: value };
    }
    case 'radio':
    case 'dropdown':
      return choiceValue(key, field, value);
    case 'date': {
      const expected = `date (ISO 8601 or ${localeDateShape(ctx.locale).hint})`;
      if (typeof value !== 'string') fail(key, expected, jsonType(value));
      const formatted = formatDateValue(value, field.detail.format, ctx);
      if (!formatted.ok) {
        fail(
          key,
          expected,
          quote(value),
          `Field "${key}" expects a ${expected}, received ${quote(value)} (${formatted.reason})`,
        );
      }
      return { kind: 'text', text: formatted.text };
    }
    case 'number': {
      if (typeof value !== 'number') fail(key, 'number', jsonType(value));
      const formatted = formatNumberValue(value, field.detail.format, ctx.locale);
      if (!formatted.ok) fail(key, 'number', String(value)); // NaN, Infinity: not JSON, but data is unknown
      const text = fitNumber(key, field, formatted.text, ctx);
      return formatted.color ? { kind: 'text', text, color: formatted.color } : { kind: 'text', text };
    }
    case 'signature':
      return signatureValue(key, value);
    default:
      return fail(key, 'a fillable field type', String(field.type));
  }
}

/**
 * Why `value` cannot be sent for `field` in strict mode (type, options, maxLength), or undefined when it
 * can: how a template's own defaults and constants are checked before they are saved.
 */
export function valueProblem(field: AnalysedField, value: unknown, locale = 'en-US'): DataValidationError | undefined {
  const ctx: Ctx = { strict: true, locale, timezone: 'UTC', warn: () => undefined };
  try {
    fillValue(field.name, field, value, ctx);
    return undefined;
  } catch (err) {
    if (err instanceof DataValidationError) return err;
    throw err;
  }
}

// ---- the whole request ---------------------------------------------------------------------------

/** Why data may not fill the field, if it may not: hidden, computed (while scripts run), read-only. */
function closedBecause(f: TemplateField, calculating: boolean): 'hidden' | 'computed' | 'read-only' | undefined {
  if (f.hidden) return 'hidden';
  if (f.computed && calculating) return 'computed';
  // a read-only field that the form computes takes the caller's value when its script does not run
  if (f.pdfMeta.readOnly && !f.computed) return 'read-only';
  return undefined;
}

const COMPUTED_WHY = 'the form computes it (send options.calculate: false to fill it yourself)';

/** At most this many problems are listed in one VALIDATION_ERROR (the message counts the rest). */
const MAX_PROBLEMS = 100;

/**
 * The problems of one request, gathered instead of stopping at the first: every refused key is reported
 * in one answer (`details.errors`, the first also as `details.field/expected/received`).
 */
class Problems {
  readonly list: ValidationProblem[] = [];
  count = 0;

  /** Runs `check`; a DataValidationError it throws becomes one problem (or its own list of them). */
  collect(check: () => void): void {
    try {
      check();
    } catch (err) {
      if (!(err instanceof DataValidationError)) throw err;
      const { field, expected, received } = err.details;
      for (const p of err.details.errors ?? [{ field, expected, received, message: err.message }]) this.add(p);
    }
  }

  add(p: ValidationProblem): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push(p);
    this.count++;
  }

  /** Throws them all as one DataValidationError, if there is any. */
  throwAny(): void {
    const [first] = this.list;
    if (!first) return;
    const n = this.count - 1;
    const more = n > 0 ? ` (and ${n} more problem${n > 1 ? 's' : ''}: see details.errors)` : '';
    throw new DataValidationError(
      { field: first.field, expected: first.expected, received: first.received, errors: this.list },
      `${first.message}${more}`,
    );
  }
}

function checkOptions(options: ValidateOptions, problems: Problems): void {
  if (options.knownLocaleAndZone) return;
  if (!isSupportedLocale(options.locale)) {
    problems.collect(() =>
      fail(
        'options.locale',
        'BCP 47 locale tag, e.g. "fr-FR"',
        quote(String(options.locale)),
        `Unknown locale ${quote(String(options.locale))}: expected a BCP 47 tag such as "fr-FR" or "en-US"`,
      ),
    );
  }
  if (!isValidTimeZone(options.timezone)) {
    problems.collect(() =>
      fail(
        'options.timezone',
        'IANA time zone, e.g. "Europe/Paris"',
        quote(String(options.timezone)),
        `Unknown time zone ${quote(String(options.timezone))}: expected an IANA name such as "Europe/Paris" or "UTC"`,
      ),
    );
  }
}

/**
 * Checks render `data` against the template's fields and turns it into engine values.
 * Throws DataValidationError (422 VALIDATION_ERROR) naming every problem at once; returns warnings for what
 * non-strict mode forgave.
 */
export function validateData(fields: TemplateField[], data: unknown, options: ValidateOptions): ValidatedData {
  const problems = new Problems();
  checkOptions(options, problems);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    problems.collect(() =>
      fail(
        'data',
        'object',
        jsonType(data),
        `"data" must be a JSON object of field values, received ${jsonType(data)}`,
      ),
    );
    problems.throwAny();
  }
  // the options' problems are reported with the data's; formatting below needs a usable locale and zone
  const usable = problems.count === 0;

  const warnings: string[] = [];
  let dropped = 0;
  const warn = (message: string) => (warnings.length < MAX_WARNINGS ? warnings.push(message) : dropped++);
  const ctx: Ctx = {
    strict: options.strict,
    locale: usable ? options.locale : 'en-US',
    timezone: usable ? options.timezone : 'UTC',
    warn,
  };

  const byName = new Map<string, TemplateField>();
  const byOriginal = new Map<string, TemplateField>();
  for (const f of fields) {
    byName.set(f.name, f);
    byOriginal.set(f.pdfMeta.originalName, f);
  }

  const values: Record<string, FillValue> = Object.create(null);
  const calculating = options.calculate !== false;
  const unknownKeys: string[] = [];
  const keyOf = new Map<TemplateField, string>();
  const record = data as Record<string, unknown>;
  for (const rawKey of Object.keys(record)) {
    const key = clip(rawKey, 100);
    problems.collect(() => takeKey(rawKey, key));
  }
  function takeKey(rawKey: string, key: string): void {
    const field = byName.get(rawKey) ?? byOriginal.get(rawKey);
    if (!field) {
      const former = options.formerKeys?.get(rawKey);
      const was = former === undefined ? '' : `: it was a key of version ${former} of this template`;
      if (ctx.strict) fail(key, 'a field of the template', 'unknown field', `Unknown field "${key}"${was}`);
      warn(`Unknown field "${key}" ignored${was}`);
      unknownKeys.push(rawKey);
      return;
    }
    const earlier = keyOf.get(field);
    if (earlier !== undefined) {
      fail(
        key,
        'one value per field',
        `values under both "${earlier}" and "${key}"`,
        `Field "${field.name}" was sent twice, as "${earlier}" and "${key}": send only one of them`,
      );
    }
    keyOf.set(field, key);
    const value = record[rawKey];
    if (field.constant !== undefined) {
      fail(
        key,
        'no value (the field is a constant of the template)',
        jsonType(value),
        `Field "${key}" is a constant of the template and cannot be sent in data`,
      );
    }
    const closed = closedBecause(field, calculating);
    if (closed === 'hidden') {
      if (ctx.strict)
        fail(key, 'no value (the field is hidden)', jsonType(value), `Field "${key}" is hidden and cannot be filled`);
      warn(`Field "${key}" is hidden; its value was ignored`);
      return;
    }
    if (closed === 'computed') {
      if (ctx.strict)
        fail(
          key,
          'no value (the form computes the field)',
          'a value',
          `Field "${key}" is computed by the form and cannot be sent: ${COMPUTED_WHY}`,
        );
      warn(`COMPUTED_FIELD_IGNORED: Field "${key}" is computed by the form; its value was ignored`);
      return;
    }
    if (closed === 'read-only') {
      if (ctx.strict)
        fail(
          key,
          'no value (the field is read-only)',
          jsonType(value),
          `Field "${key}" is read-only and cannot be filled`,
        );
      warn(`Field "${key}" is read-only; its value was ignored`);
      return;
    }
    values[field.pdfMeta.originalName] = fillValue(key, field, value, ctx);
  }

  // the template's own values: constants always, defaults where the data omitted the key. They were checked
  // when saved, but their formatted length depends on the render's locale ("12,345,678" is "1,23,45,678" in
  // en-IN): one that no longer fits is cut with the usual warning, never a 422 about a value nobody sent
  for (const f of fields) {
    if (closedBecause(f, calculating)) continue;
    const own = f.constant !== undefined ? f.constant : keyOf.has(f) ? undefined : f.default;
    if (own !== undefined) values[f.pdfMeta.originalName] = fillValue(f.name, f, own, { ...ctx, strict: false });
  }

  for (const f of fields) {
    if (!f.required || closedBecause(f, calculating)) continue;
    const given = values[f.pdfMeta.originalName];
    if (given !== undefined && given.kind !== 'clear') continue;
    if (given === undefined && keyOf.has(f)) continue; // sent but refused: reported already
    const received = given === undefined ? 'nothing' : 'null';
    if (ctx.strict)
      problems.add({
        field: f.name,
        expected: 'a value (the field is required)',
        received,
        message: `Required field "${f.name}" is missing`,
      });
    else warn(`Required field "${f.name}" is missing`);
  }
  problems.throwAny();

  if (dropped > 0) warnings.push(`${dropped} more warnings not listed`);
  return { values, warnings, unknownKeys };
}
