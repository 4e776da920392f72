import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// Endpoint secrets are stored sealed (AES-256-GCM under a key derived from SIGNING_SECRET, or the
// DATA_DIR key): a copy of the database alone cannot forge webhooks. Every instance must therefore share
// SIGNING_SECRET (already required for download links); a secret that no longer opens (the key changed)
// fails its deliveries until the endpoint's secret is rotated.

const VERSION = 'v1';

function boxKey(signingKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', signingKey, Buffer.alloc(0), 'formcast webhook endpoint secrets', 32));
}

export function sealSecret(signingKey: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', boxKey(signingKey), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/** The secret, or undefined when it cannot be opened with this key. */
export function openSecret(signingKey: Buffer, sealed: string): string | undefined {
  if (!sealed.startsWith(`${VERSION}.`)) return undefined;
  try {
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', boxKey(signingKey), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
