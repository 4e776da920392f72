import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { openSecret } from './secret-box.js';

// Standard Webhooks secrets: "whsec_" + base64 of 32 random bytes (the spec asks for 24 to 64). Signing
// goes through the maintained `standardwebhooks` package, so any Standard Webhooks library verifies it.

/** How long the secret replaced by a rotation keeps signing, so receivers can switch without a gap. */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` header: one `v1,<signature>` per secret, space separated (the spec allows
 * several), so during the 24 h after a rotation receivers holding either secret accept the message.
 */
export function signatureHeader(secrets: readonly string[], msgId: string, timestamp: Date, payload: string): string {
  return secrets.map((s) => new Webhook(s).sign(msgId, timestamp, payload)).join(' ');
}

/**
 * The secrets that sign now: the current one, and the previous one until its 24 h are over, opened from
 * their sealed form (secret-box.ts); one that no longer opens is left out.
 */
export function signingSecrets(
  row: { secret: string; previous_secret: string | null; previous_secret_expires_at: string | null },
  now: Date,
  signingKey: Buffer,
): string[] {
  const sealed = [row.secret];
  if (row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at > now.toISOString())
    sealed.push(row.previous_secret);
  return sealed.map((s) => openSecret(signingKey, s)).filter((s): s is string => s !== undefined);
}
