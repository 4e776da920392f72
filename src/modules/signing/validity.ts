/**
 * How far ahead of our clock a certificate's validity may start and still count as begun. X.509 times
 * have no fraction, so a certificate made this second starts at the second's beginning; and our clock is
 * the database's time read across a round trip, which under load can sit some hundreds of milliseconds
 * behind the machine that made it. A certificate made a moment before it is uploaded must not read as
 * "not valid yet" for that. A minute covers both and the skew of machines kept by NTP; a certificate
 * dated further ahead is refused.
 */
const NOT_BEFORE_LEEWAY_MS = 60_000;

/** Whether a validity starting at `notBefore` has begun at `now`, within the leeway above. */
export function hasBegun(notBefore: Date, now: Date): boolean {
  return notBefore.getTime() - NOT_BEFORE_LEEWAY_MS <= now.getTime();
}
