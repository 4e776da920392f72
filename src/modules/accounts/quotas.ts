// Quota arithmetic on calendar months (the account lock that makes quotas exact: account-records.ts).

/** Calendar month in UTC, YYYY-MM (contract: the month is the calendar month in UTC). */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function secondsToNextMonth(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
