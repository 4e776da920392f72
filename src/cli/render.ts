import { readFile, writeFile } from 'node:fs/promises';
import { outputFolderProblem } from './output-path.js';
import { usageError } from './help.js';
import { analyse } from '../pdf/analysis/analyse.js';
import { fillPdf } from '../pdf/fill/fill.js';
import { PdfEngineError } from '../pdf/types.js';
import { validateData } from '../modules/render-data/validate-data.js';
import { scriptRejectionWarnings } from '../modules/render-data/script-rejections.js';
import { AppError, DataValidationError } from '../errors.js';
import { readPkcs12 } from '../modules/signing/pkcs12.js';
import { signBytes, signerFromPem } from '../modules/signing/sign-output.js';
import { signatureFieldOf } from '../modules/renders/seal-output.js';

/** Deadline of the --tsa request, as the server's TSA_TIMEOUT_MS default. */
const TSA_TIMEOUT_MS = 10_000;
import { fail } from './accounts.js';

interface Flags {
  output?: string;
  'no-flatten'?: boolean;
  'no-calculate'?: boolean;
  watermark?: boolean;
  strict?: boolean;
  locale?: string;
  timezone?: string;
  sign?: string;
  'sign-password'?: string;
  tsa?: string;
}

/** The .p12's signer, read before anything is filled so a bad certificate costs nothing. */
async function offlineSigner(flags: Flags) {
  if (!flags.sign) return undefined;
  const password = flags['sign-password'] ?? process.env.FORMCAST_SIGN_PASSWORD ?? '';
  const material = readPkcs12(await readFile(flags.sign), password);
  const now = new Date();
  if (material.notBefore > now || material.notAfter <= now)
    throw new CliError(
      `${flags.sign}: the certificate is valid from ${material.notBefore.toISOString()} to ${material.notAfter.toISOString()}, not now`,
    );
  if (flags.tsa !== undefined && !/^https?:\/\/[^/]/i.test(flags.tsa))
    throw new CliError(`--tsa must be an http(s) URL (got "${flags.tsa}")`);
  return { material, signer: signerFromPem(material.certificatesPem, material.privateKeyPem) };
}

class CliError extends Error {}

/** Offline: the same analysis, validation and fill as the API, on local files. */
export async function renderCommand(args: string[], flags: Flags): Promise<number> {
  const [templatePath, dataPath] = args;
  if (!templatePath || !dataPath || !flags.output)
    return usageError('render needs TEMPLATE.pdf DATA.json -o OUT.pdf', 'render');
  const folderProblem = outputFolderProblem(flags.output);
  if (folderProblem) return fail(folderProblem);
  try {
    const signing = await offlineSigner(flags);
    const template = await readFile(templatePath);
    const data: unknown = JSON.parse(await readFile(dataPath, 'utf8'));
    const analysis = await analyse(template);
    const strict = flags.strict ?? false;
    // --no-calculate: the form's scripts do not run, and its computed fields take values from DATA.json
    const calculate = !flags['no-calculate'];
    const { values, warnings } = validateData(analysis.fields, data, {
      strict,
      locale: flags.locale ?? 'fr-FR',
      timezone: flags.timezone ?? 'Europe/Paris',
      calculate,
    });
    const result = await fillPdf(template, analysis, {
      values,
      flatten: !flags['no-flatten'],
      watermark: flags.watermark ? 'formcast' : undefined,
      calculate,
    });
    const rejected = scriptRejectionWarnings(analysis.fields, result.scriptRejections, strict);
    const out = signing
      ? await signBytes(result.bytes, signing.signer, {
          subject: signing.material.subject,
          now: new Date(),
          field: signatureFieldOf(analysis, values),
          timestamp: flags.tsa ? { url: flags.tsa, timeoutMs: TSA_TIMEOUT_MS } : undefined,
        })
      : result.bytes;
    await writeFile(flags.output, out);
    for (const w of [...warnings, ...result.warnings, ...rejected]) console.error(`warning: ${w}`);
    const signedBy = signing ? `, signed by ${signing.material.subject}${flags.tsa ? ', time-stamped' : ''}` : '';
    console.error(`wrote ${flags.output} (${out.byteLength} bytes${signedBy})`);
    return 0;
  } catch (err) {
    if (err instanceof DataValidationError || err instanceof PdfEngineError || err instanceof CliError)
      return fail(err.message);
    // a PKCS#12 refused (wrong password, no key, ...): the same words as the API's
    if (err instanceof AppError) return fail(`${flags.sign}: ${err.message}`);
    if (err instanceof SyntaxError) return fail(`${dataPath} is not valid JSON: ${err.message}`);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return fail(`file not found: ${(err as NodeJS.ErrnoException).path}`);
    throw err;
  }
}
