import { decodeParamName } from '../../lib/redact-url.js';

// A download link is authorised by its query alone, so it must be read one way only. A parameter
// sent twice, or a name written with percent-escapes (`%73ignature`), could be read differently by a
// proxy, a log redactor or a cache than by us: such links are refused (403) rather than interpreted.

/** Whether the raw query of a download URL names a parameter twice or spells a name with escapes. */
export function hasAmbiguousParams(url: string): boolean {
  const q = url.indexOf('?');
  if (q < 0) return false;
  const seen = new Set<string>();
  for (const pair of url.slice(q + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const raw = eq < 0 ? pair : pair.slice(0, eq);
    const name = decodeParamName(raw);
    if (name !== raw || seen.has(name)) return true;
    seen.add(name);
  }
  return false;
}
