// Secrets travel in some URLs (download links carry `signature`, S3 pre-signed ones `X-Amz-Signature`
// and `X-Amz-Credential`). Logs must never hold them, however the client spells the parameter name:
// repeated, percent-encoded (`%73ignature`), or in another case. Each parameter's name is decoded
// before it is compared, and every match is redacted, not only the first.

const SECRET_PARAMS = new Set(['signature', 'x-amz-signature', 'x-amz-credential', 'x-amz-security-token']);

const REDACTED = '[redacted]';

/** A query parameter's name as a server would read it: percent-decoded ('+' is a space), lower case. */
export function decodeParamName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** The URL (path and query, or absolute) with the value of every secret parameter replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_PARAMS.has(decodeParamName(name)) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q)}?${query.join('&')}`;
}
