import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../ports/webhook-sender.js';
import { ipLiteral, isForbiddenAddress } from './address-policy.js';

/** Bytes of an answer read before the connection is cut: enough for a short error message in the log. */
const MAX_RESPONSE_BYTES = 4096;
const MAX_URL_LENGTH = 2048;

export interface HttpWebhookSenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE: http: and loopback/private/link-local targets allowed */
  allowPrivate: boolean;
  timeoutMs: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that refuses forbidden addresses: net.connect dials only what it returns,
 * so the check is on the address actually dialled (a rebinding DNS answer cannot slip through). Every
 * address of the name must be allowed, whichever one the connection ends up using.
 */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isForbiddenAddress(a.address));
    if (bad) {
      const refused: NodeJS.ErrnoException = new Error(
        `${hostname} resolves to ${bad.address}, a loopback, private, link-local or reserved address`,
      );
      refused.code = 'EFORBIDDENADDRESS';
      return callback(refused, []);
    }
    if (!list.length)
      return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    if (options.all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}

/** What is wrong with the form of a webhook URL (scheme, credentials, literal address), or null. */
export function urlFormProblem(raw: string, allowPrivate: boolean): string | null {
  if (raw.length > MAX_URL_LENGTH) return `the URL is longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    return allowPrivate ? 'the URL must use https: or http:' : 'the URL must use https:';
  if (url.username || url.password) return 'the URL must not carry a user name or password';
  if (!url.hostname) return 'the URL has no host';
  const ip = ipLiteral(url);
  if (ip && !allowPrivate && isForbiddenAddress(ip))
    return `${ip} is a loopback, private, link-local or reserved address`;
  return null;
}

export class HttpWebhookSender implements WebhookSender {
  constructor(private readonly options: HttpWebhookSenderOptions) {}

  async checkUrl(raw: string): Promise<string | null> {
    const problem = urlFormProblem(raw, this.options.allowPrivate);
    if (problem || this.options.allowPrivate) return problem;
    const url = new URL(raw);
    if (ipLiteral(url)) return null;
    try {
      const addresses = await dns.promises.lookup(url.hostname, { all: true });
      const bad = addresses.find((a) => isForbiddenAddress(a.address));
      if (bad) return `${url.hostname} resolves to ${bad.address}, a loopback, private, link-local or reserved address`;
      return addresses.length ? null : `${url.hostname} has no address`;
    } catch (err) {
      return `${url.hostname} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'DNS error'})`;
    }
  }

  send(request: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const problem = urlFormProblem(request.url, this.options.allowPrivate);
    if (problem) return Promise.resolve({ statusCode: null, error: problem, durationMs: 0, responseBody: '' });
    const url = new URL(request.url);
    const body = Buffer.from(request.body, 'utf8');

    return new Promise<WebhookResponse>((resolve) => {
      let statusCode: number | null = null;
      const chunks: Buffer[] = [];
      let read = 0;
      let settled = false;
      const finish = (error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy(); // no keep-alive: every attempt on its own connection, nothing left reading
        if (statusCode !== null && statusCode >= 300 && statusCode < 400 && !error)
          error = `redirect (${statusCode}) not followed: webhook URLs must answer directly`;
        resolve({
          statusCode,
          error,
          durationMs: elapsed(),
          responseBody: Buffer.concat(chunks).toString('utf8'),
        });
      };
      const client = url.protocol === 'https:' ? https : http;
      const req = client.request(
        url,
        {
          method: 'POST',
          agent: false,
          headers: { ...request.headers, 'content-length': String(body.byteLength) },
          lookup: this.options.allowPrivate ? undefined : (guardedLookup as unknown as typeof dns.lookup),
        },
        (res) => {
          statusCode = res.statusCode ?? null;
          res.on('data', (chunk: Buffer) => {
            if (read < MAX_RESPONSE_BYTES) chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - read));
            read += chunk.byteLength;
            if (read >= MAX_RESPONSE_BYTES) finish(null); // enough: the status is what counts
          });
          res.on('end', () => finish(null));
          res.on('error', () => finish(null)); // the status arrived; a broken body does not undo it
        },
      );
      // One budget for everything (connect, TLS, send, answer); a slow body after the status keeps the status.
      // Judged after one more look at the sockets (setImmediate runs after the loop's I/O): when this
      // process stalled past the budget (a loaded machine, a server starting), its timer and the answer
      // that arrived meanwhile are due together, and timers run first: the receiver answered in time.
      const timer = setTimeout(
        () => setImmediate(() => finish(statusCode === null ? `no answer within ${this.options.timeoutMs} ms` : null)),
        this.options.timeoutMs,
      );
      req.on('error', (err: NodeJS.ErrnoException) => finish(describeError(err)));
      req.end(body);
    });
  }
}

function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === 'EFORBIDDENADDRESS') return err.message;
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND') return 'host not found';
  if (err.code === 'ECONNRESET') return 'connection reset';
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
