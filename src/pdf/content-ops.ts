// Number formatting for content-stream operators, shared by the appearance, font and fill modules.
/** Formats a number for content streams: at most 3 decimals, no exponent. */
export function num(n: number): string {
  if (!Number.isFinite(n)) return '0';
  const r = Math.round(n * 1000) / 1000;
  // String() is exact for 3-decimal values of this size and much faster than toFixed + trimming.
  if (Math.abs(r) < 1e15) return r === 0 ? '0' : String(r);
  const s = n.toFixed(3);
  return s.includes('.') ? s.replace(/\.?0+$/, '') || '0' : s;
}
