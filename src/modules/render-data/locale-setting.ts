import { validationError } from '../../errors.js';
import { isSupportedLocale, isValidTimeZone } from './date-parse.js';

// A stored render default (a template's or an account's): a locale or time zone the render options would
// accept, or null for "the next level's". null arrives as "" (Ajv coerces it for the string branch): both
// mean null.

/** A BCP 47 tag ICU has data for (Intl), or null. */
export function checkLocaleSetting(given: string | null, field = 'locale'): string | null {
  const locale = given || null;
  if (locale !== null && !isSupportedLocale(locale))
    throw validationError({
      field,
      expected: 'a BCP 47 locale such as "en-US", or null',
      received: JSON.stringify(locale),
    });
  return locale;
}

/** An IANA time zone Intl knows, or null. */
export function checkTimeZoneSetting(given: string | null, field = 'timezone'): string | null {
  const zone = given || null;
  if (zone !== null && !isValidTimeZone(zone))
    throw validationError({
      field,
      expected: 'an IANA time zone such as "UTC", or null',
      received: JSON.stringify(zone),
    });
  return zone;
}
