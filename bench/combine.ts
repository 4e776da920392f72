// Issue 27 item 9: a batch's combined PDF built without the server holding the items or the result.
// A real server process (`bin/formcast.js serve`, SQLite in a temp DATA_DIR, the default worker pool)
// renders 1,000 copies of a two-page corpus form with `combine: true`; measured: the combine (from the
// last item done to the batch completed, polled every 50 ms) and the server process's peak RSS over the
// whole batch (VmHWM of the main process alone; render workers have budgets of their own). `signed`: the
// combined file is signed as a whole (issue 26) with a certificate made here (the items are not signed).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import forge from 'node-forge';
import { startServerProcess } from './server-process.js';

export interface CombineBench {
  form: string;
  signed: boolean;
  items: number;
  pages: number;
  combineMs: number;
  serverPeakMb: number;
  combinedMb: number;
}

export async function benchCombine(
  repoRoot: string,
  corpus: string,
  form: string,
  items: number,
  signed = false,
): Promise<CombineBench> {
  const server = await startServerProcess(repoRoot, {
    accounts: ['bench'],
    env: { JOB_POLL_MS: '100' },
    tmpPrefix: 'formcast-bench-combine-',
  });
  const { base, keys } = server;
  const key = keys[0]!;
  try {
    const auth = { authorization: `Bearer ${key}` };
    const body = new FormData();
    body.append('file', new Blob([readFileSync(path.join(corpus, 'pdfs', form))]), form);
    const tpl = ((await (await fetch(`${base}/v1/templates`, { method: 'POST', headers: auth, body })).json()) as any)
      .data.id as string;
    if (signed) {
      const up = await fetch(`${base}/v1/signing-certificates`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ pkcs12: pkcs12(), password: 'bench' }),
      });
      if (up.status !== 201) throw new Error(`certificate refused: ${up.status} ${await up.text()}`);
    }
    const batch = Array.from({ length: items }, (_, i) => ({
      templateId: tpl,
      data: {},
      options: { flatten: i % 2 === 0, ...(signed ? { sign: false } : {}) },
    }));
    const res = await fetch(`${base}/v1/renders/batch`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ combine: true, items: batch, ...(signed ? { sign: true } : {}) }),
    });
    const id = ((await res.json()) as any).data?.id as string;
    if (!id) throw new Error(`batch refused: ${res.status}`);
    let itemsDone: number | undefined;
    let view: any;
    for (;;) {
      view = ((await (await fetch(`${base}/v1/render-batches/${id}`, { headers: auth })).json()) as any).data;
      if (itemsDone === undefined && view.progress.pending === 0) itemsDone = performance.now();
      if (view.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const combineMs = performance.now() - (itemsDone ?? performance.now());
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${server.pid}/status`, 'latin1'));
    if (view.combineError) throw new Error(`combine failed: ${view.combineError}`);
    if (signed && !view.signed) throw new Error('the combined file was not signed');
    const file = new Uint8Array(await (await fetch(view.combinedDownloadUrl)).arrayBuffer());
    const pages = [
      ...Buffer.from(file)
        .toString('latin1')
        .matchAll(/\/Type\s*\/Page\b/g),
    ].length;
    return {
      form,
      signed,
      items,
      pages,
      combineMs,
      serverPeakMb: hwm ? Number(hwm[1]) / 1024 : Number.NaN,
      combinedMb: file.byteLength / 1_048_576,
    };
  } finally {
    await server.close();
  }
}

/** The target rows of the combine bench. */
export function combineTargets(c: CombineBench, pass: (ok: boolean) => string): string[] {
  const what = `${c.items}-copy${c.signed ? ' signed' : ''} combine of ${c.form} (${c.pages} pages, ${c.combinedMb.toFixed(1)} MB)`;
  return [
    `| ${what}: combine ≤ 10 s | ${(c.combineMs / 1000).toFixed(1)} s | ${pass(c.combineMs <= 10_000)} |`,
    `| ${what}: server RSS ≤ 200 MB (peak of the main process over the batch) | ${c.serverPeakMb.toFixed(0)} MB | ${pass(c.serverPeakMb <= 200)} |`,
  ];
}

/** A self-signed RSA-2048 certificate and its key as PKCS#12 (base64, password "bench"), made here. */
function pkcs12(): string {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  const attrs = [{ name: 'commonName', value: 'bench signer' }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(keys.privateKey, [cert], 'bench', { algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary').toString('base64');
}
