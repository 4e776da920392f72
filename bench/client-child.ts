// Child process that makes the bench's own HTTP requests (template uploads, warm-up renders, downloads,
// the burst), so the server's process holds only the server: a fetch client in it (undici, FormData
// copies of each template, parsed responses, its malloc'd buffers) counted as the server's "main" RSS.
// Like load-child.ts for autocannon. Receives calls over IPC and answers each by its id.
import { readFileSync, writeFileSync } from 'node:fs';
import { serveCalls } from './child-rpc.js';
import { renderBody } from './data.js';
import { timeIt, type Summary, type TimeOptions } from './stats.js';

/** What the client can be asked to do, with its arguments and answer. */
export interface ClientCalls {
  /** POST /v1/templates `timing.iterations` times (at most 10, 1 warm-up); the last template's id */
  upload: {
    args: { url: string; key: string; file: string; name: string; timing: TimeOptions };
    result: { stats: Summary; templateId: string };
  };
  /** POST /v1/renders `count` times in sequence; the first one's download link */
  renders: { args: { url: string; key: string; body: string; count: number }; result: { downloadUrl: string } };
  /** GET of a download link at concurrency 1, timed; the last answer's bytes are written to `out` */
  download: { args: { url: string; out: string; timing: TimeOptions }; result: { stats: Summary } };
  /** upload `file` with `key`, then `count` renders of it at once; the status codes */
  burst: {
    args: { url: string; key: string; file: string; data: Record<string, unknown>; count: number };
    result: BurstResult;
  };
}

export interface BurstResult {
  sent: number;
  created: number;
  statusCodes: Record<string, number>;
}

async function call(base: string, key: string, method: string, p: string, body?: string | FormData) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (typeof body === 'string') headers['content-type'] = 'application/json';
  const res = await fetch(base + p, { method, headers, body });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as { data: Record<string, unknown> };
}

function templateForm(file: string, name: string): FormData {
  const form = new FormData();
  form.append('name', name);
  form.append('file', new Blob([readFileSync(file)], { type: 'application/pdf' }), name);
  return form;
}

const calls: { [K in keyof ClientCalls]: (args: ClientCalls[K]['args']) => Promise<ClientCalls[K]['result']> } = {
  async upload({ url, key, file, name, timing }) {
    let templateId = '';
    const form = templateForm(file, name);
    const upload = async () => {
      templateId = String((await call(url, key, 'POST', '/v1/templates', form)).data.id);
    };
    const stats = await timeIt(upload, { ...timing, iterations: Math.min(timing.iterations, 10), warmup: 1 });
    return { stats, templateId };
  },
  async renders({ url, key, body, count }) {
    let downloadUrl = '';
    for (let i = 0; i < count; i++) {
      const { data } = await call(url, key, 'POST', '/v1/renders', body);
      if (i === 0) downloadUrl = String(data.downloadUrl);
    }
    return { downloadUrl };
  },
  async download({ url, out, timing }) {
    let bytes = new Uint8Array();
    const get = async () => {
      const res = await fetch(url);
      if (res.status !== 200) throw new Error(`GET download: HTTP ${res.status}`);
      bytes = new Uint8Array(await res.arrayBuffer());
    };
    const stats = await timeIt(get, timing);
    writeFileSync(out, bytes);
    return { stats };
  },
  async burst({ url, key, file, data, count }) {
    const up = await fetch(`${url}/v1/templates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: templateForm(file, 'burst.pdf'),
    });
    // A saturated machine can refuse the upload itself (503 while the analysis waits for a worker).
    if (!up.ok) return { sent: count, created: 0, statusCodes: { [`upload ${up.status}`]: 1 } };
    const templateId = ((await up.json()) as { data: { id: string } }).data.id;
    const body = renderBody(templateId, data, true);
    const statuses = await Promise.all(
      Array.from({ length: count }, () =>
        fetch(`${url}/v1/renders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        }).then(
          async (r) => {
            await r.arrayBuffer();
            return r.status;
          },
          () => 0,
        ),
      ),
    );
    const statusCodes: Record<string, number> = {};
    for (const s of statuses) statusCodes[s] = (statusCodes[s] ?? 0) + 1;
    return { sent: count, created: statuses.filter((s) => s === 201).length, statusCodes };
  },
};

serveCalls<ClientCalls>(calls);
