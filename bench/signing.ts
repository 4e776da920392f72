// The cost of signing (issue 26 target: ≤ 5 ms added to a small form's render without a time-stamp):
// the render's fill+flatten alone, then the same followed by the signature revision and its PAdES CMS,
// alternated call by call. The key and certificate are made here (RSA-2048, node-forge), never stored.
import { createPrivateKey } from 'node:crypto';
import forge from 'node-forge';
import { PadesSigner } from '../src/modules/signing/cms-signature.js';
import { FontLibrary } from '../src/pdf/fonts/font-library.js';
import { fillPdf } from '../src/pdf/fill/fill.js';
import { TemplateCache } from '../src/pdf/fill/template-cache.js';
import { addSignatureSlot } from '../src/pdf/seal/signature-placeholder.js';
import { byteRangeDigest, embedSignature } from '../src/pdf/seal/byte-range.js';
import type { FillValue, TemplateAnalysis } from '../src/pdf/types.js';
import { summarise, type Summary, type TimeOptions } from './stats.js';

export interface SigningResult {
  plain: Summary;
  signed: Summary;
  /**
   * The same calls' CPU time (process.cpuUsage): on a saturated machine a call of a few ms is often
   * descheduled, and its wall time measures the queue for the cores more than the work
   */
  plainCpu: Summary;
  signedCpu: Summary;
}

function identity() {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date();
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  const attrs = [{ name: 'commonName', value: 'bench signer' }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  const pkcs8 = createPrivateKey(forge.pki.privateKeyToPem(keys.privateKey)).export({ type: 'pkcs8', format: 'der' });
  return { chain: [der], pkcs8 };
}

export async function benchSigning(
  template: Uint8Array,
  analysis: TemplateAnalysis,
  cacheKey: string,
  opts: TimeOptions,
): Promise<SigningResult> {
  const cache = new TemplateCache({
    maxEntries: 8,
    maxBytes: 64 * 1024 * 1024,
    fonts: new FontLibrary({ shapeCacheEntries: 1024 }),
  });
  const values: Record<string, FillValue> = {};
  for (const f of analysis.fields)
    if (f.type === 'text' && !f.pdfMeta.readOnly) values[f.pdfMeta.originalName] = { kind: 'text', text: 'Signed 42' };
  // one signer for every signature, as the server keeps one per certificate (Caches.signers)
  const signer = new PadesSigner(identity());
  const fill = async () => {
    const r = await fillPdf(template, analysis, { values, flatten: true }, cacheKey, cache);
    return r.chunks ? Buffer.concat(r.chunks) : Buffer.from(r.bytes);
  };
  const plain = () => fill();
  const signed = async () => {
    const slot = await addSignatureSlot(await fill(), {
      reason: 'bench',
      location: 'bench',
      name: 'bench signer',
      signingTime: new Date(),
      contentsBytes: signer.maxCmsBytes,
    });
    return embedSignature(slot, await signer.signDigest(byteRangeDigest(slot)));
  };
  for (let i = 0; i < opts.warmup; i++) {
    await plain();
    await signed();
  }
  const samples: [number[], number[]] = [[], []];
  const cpu: [number[], number[]] = [[], []];
  const deadline = performance.now() + opts.maxSeconds * 2000;
  for (let i = 0; i < opts.iterations; i++) {
    for (const [k, fn] of [plain, signed].entries()) {
      const used = process.cpuUsage();
      const t = performance.now();
      await fn();
      samples[k].push(performance.now() - t);
      const { user, system } = process.cpuUsage(used);
      cpu[k].push((user + system) / 1000);
    }
    if (i >= 4 && performance.now() > deadline) break;
  }
  return {
    plain: summarise(samples[0]),
    signed: summarise(samples[1]),
    plainCpu: summarise(cpu[0]),
    signedCpu: summarise(cpu[1]),
  };
}
