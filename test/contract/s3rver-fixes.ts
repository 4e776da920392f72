import { createRequire } from 'node:module';

/**
 * s3rver checks SigV4 signatures for real (so a tampered URL is refused), but canonicalises two things
 * differently from AWS and from the SDK, which makes it refuse valid requests:
 *  - query values are encoded with encodeURIComponent, where SigV4 wants RFC 3986 (`'()*!` escaped),
 *    so a pre-signed `filename*=UTF-8''...` disposition never matches;
 *  - a bucket-level path is canonicalised as `/bucket`, where the SDK signs the path it sends, `/bucket/`.
 * We correct the canonical request before s3rver hashes it; the HMAC comparison stays s3rver's own.
 * Test-only: production talks to real S3 or a compatible server.
 */
export function fixS3rverSigV4(): void {
  const require = createRequire(import.meta.url);
  const v4 = require('@20minutes/s3rver/lib/signature/v4.js') as {
    getStringToSign: (req: { uri: string; querystring: string }, sig: unknown) => string;
    __formcastFixed?: boolean;
  };
  if (v4.__formcastFixed) return;
  const original = v4.getStringToSign;
  v4.getStringToSign = (req, sig) => {
    const uri = /^\/[^/]+$/.test(req.uri) ? `${req.uri}/` : req.uri;
    const querystring = req.querystring
      .split('&')
      .filter(Boolean)
      .map((pair) => pair.split('=').map((part) => rfc3986(decodeURIComponent(part))))
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
      .map(([k, v = '']) => `${k}=${v}`)
      .join('&');
    return original({ ...req, uri, querystring }, sig);
  };
  v4.__formcastFixed = true;
}

function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
