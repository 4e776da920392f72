// The HTTP calls of the fairness bench (bench/fairness.ts), shared by its set-up and by the clients of each
// account, which run in processes of their own (fairness-child.ts).

export type Answers = Record<string, { n: number; ms: number }>;

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

export async function call(
  base: string,
  key: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: body === undefined ? auth(key) : { ...auth(key), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined; // a preview answers the PDF itself
  }
  return { status: res.status, json };
}

export async function upload(
  base: string,
  key: string,
  bytes: Uint8Array,
  name: string,
): Promise<{ status: number; json: any }> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(`${base}/v1/templates`, { method: 'POST', headers: auth(key), body: form });
  return { status: res.status, json: await res.json() };
}

/**
 * `n` concurrent loops of `step(loop, i)` until `until()` says stop; answers counted by what `step`
 * names them (an operation and its HTTP status), with the mean ms of each.
 */
export async function loops(
  n: number,
  until: () => boolean,
  step: (loop: number, i: number) => Promise<string>,
  /** where the answers are counted (read while the loops run); a new record by default */
  answers: Answers = {},
): Promise<Answers> {
  await Promise.all(
    Array.from({ length: n }, async (_, loop) => {
      for (let i = 0; !until(); i++) {
        const t = performance.now();
        const what = await step(loop, i).catch(() => 'no answer');
        const a = (answers[what] ??= { n: 0, ms: 0 });
        a.ms += (performance.now() - t - a.ms) / ++a.n; // running mean
      }
    }),
  );
  return answers;
}
