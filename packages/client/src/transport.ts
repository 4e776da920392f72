import { FormcastError } from './errors.js';

/** What every call goes through: a fetch (with retries when on) that throws FormcastError on network failures. */
export type Fetch = (request: Request) => Promise<Response>;

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The body of a 2xx answer, or a FormcastError built from the error answer. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw FormcastError.from(response, error);
  return data as T;
}

export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * A fetch whose failures to reach the server (refused, reset, DNS, TLS) become FormcastError
 * NETWORK_ERROR, with the original error as `cause`; an abort the caller asked for stays an abort.
 */
export function networkErrors(fetchImpl: Fetch): Fetch {
  return async (request) => {
    try {
      return await fetchImpl(request);
    } catch (err) {
      if (err instanceof FormcastError || request.signal?.aborted) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      throw FormcastError.network(`Cannot reach ${new URL(request.url).origin} (${why})`, err);
    }
  };
}

/** An error answer's body as JSON when it is JSON, else its text. */
async function errorBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The bytes of an answer, or the FormcastError it carries. */
export async function bytesOf(response: Response): Promise<Uint8Array> {
  if (response.ok) return new Uint8Array(await response.arrayBuffer());
  throw FormcastError.from(response, await errorBody(response));
}

/**
 * The bytes behind a signed link, followed without the API key (it carries its own authorisation). When
 * the link has expired (403) and `renew` can sign a fresh one, it is asked once.
 */
export async function downloadSigned(
  send: Fetch,
  url: string | undefined,
  renew: (() => Promise<string>) | undefined,
): Promise<Uint8Array> {
  let link = url;
  let renewed = false;
  if (link === undefined) {
    if (!renew) throw new TypeError('nothing to download: no link and no id to ask one for');
    link = await renew();
    renewed = true;
  }
  for (;;) {
    const response = await send(new Request(link));
    if (response.status === 403 && !renewed && renew) {
      await response.body?.cancel();
      link = await renew();
      renewed = true;
      continue;
    }
    return bytesOf(response);
  }
}
