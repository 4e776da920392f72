import { createHmac, timingSafeEqual } from 'node:crypto';

// Download links: /v1/files/:renderId?expires=<unix seconds>&signature=<HMAC-SHA256(renderId.expires)>.
// The signature is the whole authorisation, so it covers both the render id and the expiry.

function sign(key: Buffer, renderId: string, expires: number): string {
  return createHmac('sha256', key).update(`${renderId}.${expires}`).digest('base64url');
}

export function signedDownloadUrl(publicUrl: string, key: Buffer, renderId: string, expires: number): string {
  return `${publicUrl}/v1/files/${renderId}?expires=${expires}&signature=${sign(key, renderId, expires)}`;
}

export type LinkCheck = 'ok' | 'invalid' | 'expired';

export function checkSignature(
  key: Buffer,
  renderId: string,
  expiresRaw: unknown,
  signature: unknown,
  nowMs: number,
): LinkCheck {
  if (typeof expiresRaw !== 'string' || !/^\d{1,12}$/.test(expiresRaw) || typeof signature !== 'string')
    return 'invalid';
  const expires = Number(expiresRaw);
  const expected = Buffer.from(sign(key, renderId, expires));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return expires * 1000 < nowMs ? 'expired' : 'ok';
}
