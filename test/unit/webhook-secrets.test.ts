import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { openSecret, sealSecret } from '../../src/modules/webhooks/secret-box.js';
import { newWebhookSecret, signatureHeader, signingSecrets } from '../../src/modules/webhooks/secrets.js';
import { nextRetryDelayMs, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/modules/webhooks/retry-schedule.js';

describe('webhook secrets', () => {
  const key = randomBytes(32);

  it('seals a secret so that only the same key opens it', () => {
    const secret = newWebhookSecret();
    const sealed = sealSecret(key, secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(openSecret(key, sealed)).toBe(secret);
    expect(openSecret(randomBytes(32), sealed)).toBe(undefined);
    // one base64 character of the nonce changed (to another character whatever it was)
    const at = sealed.indexOf('.') + 2;
    const tampered = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
    expect(openSecret(key, tampered)).toBe(undefined);
  });

  it('signs with the previous secret too until it expires, in a form standardwebhooks verifies', () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    const now = new Date();
    const row = {
      secret: sealSecret(key, b),
      previous_secret: sealSecret(key, a),
      previous_secret_expires_at: new Date(now.getTime() + 1000).toISOString(),
    };
    expect(signingSecrets(row, now, key)).toEqual([b, a]);
    expect(signingSecrets(row, new Date(now.getTime() + 2000), key)).toEqual([b]);
    const body = '{"id":"evt_1"}';
    const header = signatureHeader([b, a], 'evt_1', now, body);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)) };
    for (const s of [a, b])
      expect(new Webhook(s).verify(body, { ...headers, 'webhook-signature': header })).toEqual({ id: 'evt_1' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers, 'webhook-signature': header })).toThrow();
  });
});

describe('retry schedule', () => {
  it('spreads 10 attempts over about 3 days, each wait within 10 % of the published one', () => {
    expect(MAX_ATTEMPTS).toBe(10);
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeGreaterThan(70);
    expect(total / 3_600_000).toBeLessThan(74);
    expect(nextRetryDelayMs(1, () => 0)).toBe(4500);
    expect(nextRetryDelayMs(1, () => 1)).toBe(5500);
    expect(nextRetryDelayMs(2, () => 0.5)).toBe(300_000);
    expect(nextRetryDelayMs(MAX_ATTEMPTS, () => 0.5)).toBe(null);
  });
});
