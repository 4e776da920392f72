import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

// Signing test material made with openssl in a test's temp dir (no key comes from elsewhere), and the
// two verifiers that share no code with ours: poppler's pdfsig and openssl cms -verify.

const execFileAsync = promisify(execFile);

export interface Identity {
  crt: string;
  /** PKCS#12 with its key, base64 (password p12-secret) */
  p12: string;
  p12File: string;
  /** PKCS#12 without the key, base64 */
  noKey: string;
  keyPem: string;
}

/**
 * A self-signed certificate and key (RSA-2048, or EC P-256), as PKCS#12 files: with its key, and without.
 * `cn`: the subject's common name, in any script (UTF8String).
 */
export function makeIdentity(
  dir: string,
  name: string,
  days = 30,
  kind: 'rsa' | 'ec' = 'rsa',
  cn = `${name} signer`,
): Identity {
  const key = path.join(dir, `${name}.key`);
  const crt = path.join(dir, `${name}.crt`);
  const keyArgs = kind === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...keyArgs,
      '-nodes',
      '-keyout',
      key,
      '-out',
      crt,
      '-days',
      String(days),
      '-utf8',
      '-subj',
      `/CN=${cn}/O=Formcast Tests`,
    ],
    { stdio: 'ignore' },
  );
  const p12File = path.join(dir, `${name}.p12`);
  execFileSync('openssl', [
    'pkcs12',
    '-export',
    '-inkey',
    key,
    '-in',
    crt,
    '-out',
    p12File,
    '-passout',
    'pass:p12-secret',
  ]);
  const noKey = path.join(dir, `${name}-nokey.p12`);
  execFileSync('openssl', ['pkcs12', '-export', '-nokeys', '-in', crt, '-out', noKey, '-passout', 'pass:p12-secret']);
  return {
    crt,
    p12: readFileSync(p12File).toString('base64'),
    p12File,
    noKey: readFileSync(noKey).toString('base64'),
    keyPem: readFileSync(key, 'utf8'),
  };
}

/** Every signature of a file: its byte range's content and its CMS, in file order. */
export function allSignatureParts(bytes: Buffer) {
  const text = bytes.toString('latin1');
  return [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)].map((m) => {
    const [a, b, c, d] = m.slice(1, 5).map(Number);
    const content = Buffer.concat([bytes.subarray(a, a + b), bytes.subarray(c, c + d)]);
    const hex = bytes.subarray(a + b + 1, c - 1).toString('latin1');
    return { content, cms: Buffer.from(hex, 'hex') };
  });
}

/** The signed byte range's content and the CMS of a file's (last) signature. */
export function signatureParts(bytes: Buffer) {
  return allSignatureParts(bytes).at(-1)!;
}

export const pdfsig = (file: string) => spawnSync('pdfsig', [file], { encoding: 'utf8' }).stdout;

/** openssl cms -verify of the last signature, trusting `caFile`; the CMS is left in dir/name.cms. */
export function opensslVerify(dir: string, bytes: Buffer, name: string, caFile: string) {
  const { content, cms } = signatureParts(bytes);
  writeFileSync(path.join(dir, `${name}.cms`), cms);
  writeFileSync(path.join(dir, `${name}.content`), content);
  return spawnSync(
    'openssl',
    [
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      path.join(dir, `${name}.cms`),
      '-content',
      path.join(dir, `${name}.content`),
      '-CAfile',
      caFile,
      '-purpose',
      'any',
      '-out',
      '/dev/null',
    ],
    { encoding: 'utf8' },
  );
}

export interface LocalTsa {
  url: string;
  /** the TSA's certificate (trust anchor for openssl ts -verify) */
  crt: string;
  /** requests answered */
  answered: () => number;
  close: () => Promise<void>;
}

/**
 * A real RFC 3161 time-stamp authority on loopback: each request is answered by `openssl ts -reply`
 * with a key and certificate (extendedKeyUsage timeStamping) made here. `mode` 'hang' accepts and never
 * answers; 'garbage' answers 200 with bytes that are no time-stamp response.
 */
export async function startTsa(dir: string, mode: 'openssl' | 'hang' | 'garbage' = 'openssl'): Promise<LocalTsa> {
  const key = path.join(dir, `tsa-${mode}.key`);
  const crt = path.join(dir, `tsa-${mode}.crt`);
  const cnf = path.join(dir, `tsa-${mode}.cnf`);
  const serial = path.join(dir, `tsa-${mode}.serial`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      crt,
      '-days',
      '30',
      '-subj',
      '/CN=Formcast Test TSA',
      '-addext',
      'extendedKeyUsage=critical,timeStamping',
    ],
    { stdio: 'ignore' },
  );
  writeFileSync(serial, '01\n');
  writeFileSync(
    cnf,
    [
      '[ tsa ]',
      'default_tsa = tsa1',
      '[ tsa1 ]',
      `serial = ${serial}`,
      `signer_cert = ${crt}`,
      `signer_key = ${key}`,
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha256',
      'accuracy = secs:1',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  let n = 0;
  let seq = 0;
  let queue = Promise.resolve();
  const hanging: import('node:http').ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (mode === 'hang') return void hanging.push(res);
      if (mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
        return void res.end(Buffer.from('<html>this is not a time-stamp response</html>'));
      }
      const query = path.join(dir, `tsa-q-${++seq}.tsq`);
      const reply = path.join(dir, `tsa-r-${seq}.tsr`);
      writeFileSync(query, Buffer.concat(chunks));
      // One openssl at a time: each truncates and rewrites the serial file, and one that reads it
      // emptied by another answers "Rejected: Error during serial number generation" (exit status 0).
      // Two rows signed at once on a loaded machine did that (179 of 800 answers with 6 busy loops).
      // Asynchronous: the server under test waits on this answer in the same process.
      const answer = async () => {
        let body: Buffer | undefined;
        try {
          await execFileAsync('openssl', ['ts', '-reply', '-config', cnf, '-queryfile', query, '-out', reply]);
          body = readFileSync(reply);
        } catch {} // openssl missing or failed, or no reply file: a 500, and the queue goes on
        if (body) n++;
        res.writeHead(body ? 200 : 500, body ? { 'content-type': 'application/timestamp-reply' } : {});
        res.end(body);
      };
      queue = queue.then(answer).catch(() => undefined); // a reply that failed holds up no later one
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    crt,
    answered: () => n,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
