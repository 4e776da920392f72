import { randomBytes } from 'node:crypto';

// Prefixed ids (tpl_, rnd_, key_, acc_, evt_ events, whk_ webhook endpoints, whd_ deliveries, whl_ endpoint log entries, bat_ batches): 48-bit millisecond time then 48 random bits, in hex. Time first
// makes "createdAt desc, id desc" a true creation order even when two records share a millisecond, and
// hex compares the same in every database collation. Within one millisecond the random part counts up.
export type IdPrefix = 'acc' | 'key' | 'tpl' | 'rnd' | 'evt' | 'whk' | 'whd' | 'whl' | 'bat' | 'crt';

let lastMs = 0;
let lastRand = 0n;
const RAND_MAX = (1n << 48n) - 1n;

export function newId(prefix: IdPrefix): string {
  const ms = Date.now();
  let rand: bigint;
  if (ms <= lastMs && lastRand < RAND_MAX) {
    rand = lastRand + 1n;
  } else {
    rand = BigInt(`0x${randomBytes(6).toString('hex')}`) >> 1n; // leave headroom to count up
  }
  lastMs = Math.max(ms, lastMs);
  lastRand = rand;
  return `${prefix}_${lastMs.toString(16).padStart(12, '0')}${rand.toString(16).padStart(12, '0')}`;
}
