import { readFileSync, statSync } from 'node:fs';
import { ConfigError, type OperatorCertificateConfig } from '../../config.js';
import type { OperatorCertificate } from '../../deps.js';
import { AppError } from '../../errors.js';
import { readPkcs12 } from './pkcs12.js';
import { signerFromPem } from './sign-output.js';
import { hasBegun } from './validity.js';

// SIGNING_P12_FILE: one certificate the operator offers to every account. Read and checked at start-up:
// a server that could not sign with it refuses to start, naming the variable (never the password).

/** Far above any real PKCS#12 (a key and a long chain are a few KiB): a wrong path is not read whole. */
const MAX_FILE_BYTES = 1024 * 1024;

/** The certificate and its signer, valid at `now`; else a ConfigError naming the variable at fault. */
export function loadOperatorCertificate(source: OperatorCertificateConfig, now: Date): OperatorCertificate {
  const where = `SIGNING_P12_FILE (${source.file})`;
  let der: Buffer;
  try {
    const size = statSync(source.file).size;
    if (size > MAX_FILE_BYTES) throw new Error(`${size} bytes: far too large for a PKCS#12`);
    der = readFileSync(source.file);
  } catch (err) {
    throw new ConfigError([`${where} cannot be read: ${(err as Error).message}`]);
  }
  let material: ReturnType<typeof readPkcs12>;
  try {
    material = readPkcs12(der, source.password);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // readPkcs12 names the field at fault: `password` for a wrong one, `pkcs12` for the file
    throw new ConfigError([
      err.details?.field === 'password'
        ? `SIGNING_P12_PASSWORD does not open ${where}: the PKCS#12 password is wrong`
        : `${where}: ${err.message}`,
    ]);
  }
  if (!hasBegun(material.notBefore, now))
    throw new ConfigError([
      `${where}: the certificate is not valid yet: its validity starts ${material.notBefore.toISOString()}`,
    ]);
  if (material.notAfter <= now)
    throw new ConfigError([`${where}: the certificate expired on ${material.notAfter.toISOString()}`]);
  return {
    subject: material.subject,
    issuer: material.issuer,
    serialNumber: material.serialNumber,
    notBefore: material.notBefore,
    notAfter: material.notAfter,
    fingerprint: material.fingerprint,
    loadedAt: now,
    signer: signerFromPem(material.certificatesPem, material.privateKeyPem),
  };
}
