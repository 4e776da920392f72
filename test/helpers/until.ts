/** Polls `probe` until it returns a value other than undefined (a condition, never a fixed sleep). */
export async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  ms = 120_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
