import { readFile, writeFile } from 'node:fs/promises';
import { outputFolderProblem } from './output-path.js';
import { usageError } from './help.js';
import { openOneShot } from '../pdf/fill/one-shot.js';
import { FontLibrary } from '../pdf/fonts/font-library.js';
import { fontkitLoader } from './fontkit-bundle.js';
import { intlAnswers } from './intl-answers.js';
import { PdfEngineError } from '../pdf/types.js';
import { validateData } from '../modules/render-data/validate-data.js';
import { scriptRejectionWarnings } from '../modules/render-data/script-rejections.js';
import { AppError, DataValidationError } from '../errors.js';
import { CliError, fail } from './fail.js';

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

/** Offline: the same analysis, validation and fill as the API, on local files. */
export async function renderCommand(args: string[], flags: Flags): Promise<number> {
  const [templatePath, dataPath] = args;
  if (!templatePath || !dataPath || !flags.output)
    return usageError('render needs TEMPLATE.pdf DATA.json -o OUT.pdf', 'render');
  const folderProblem = outputFolderProblem(flags.output);
  if (folderProblem) return fail(folderProblem);
  const fontkit = fontkitLoader();
  try {
    // the signing code (PKI.js, node-forge) loads only for a render that signs
    const sign = flags.sign;
    const signing = sign ? await (await import('./offline-signing.js')).offlineSigner({ ...flags, sign }) : undefined;
    const template = await readFile(templatePath);
    const data: unknown = JSON.parse(await readFile(dataPath, 'utf8'));
    // --no-calculate: the form's scripts do not run, and its computed fields take values from DATA.json
    const calculate = !flags['no-calculate'];
    // One parse for the analysis, the preparation and the render (the output is the service's, byte for
    // byte). No page captions: a render does not use them, and reading them loads pdf.js.
    const fonts = new FontLibrary({ shapeCacheEntries: 4096, loadFontkit: fontkit.load });
    const drawsOnPages = !flags['no-flatten'] || flags.watermark === true;
    // fontkit's code cache is written once the render has succeeded (a failed run's would be thin), under
    // the V8 flags it was loaded with
    const afterRender = () => fontkit.save();
    const opened = await openOneShot(template, { captions: false, calculate, fonts, drawsOnPages, afterRender });
    const { analysis } = opened;
    const strict = flags.strict ?? false;
    const locale = flags.locale ?? 'fr-FR';
    const timezone = flags.timezone ?? 'Europe/Paris';
    const icu = intlAnswers();
    const knownLocaleAndZone = icu.known(locale, timezone);
    let validated: ReturnType<typeof validateData>;
    try {
      validated = validateData(analysis.fields, data, { strict, locale, timezone, calculate, knownLocaleAndZone });
    } catch (err) {
      // refused data: the script sandbox the template started is stopped before the error is reported
      await opened.close();
      throw err;
    }
    const { values, warnings } = validated;
    // validated: ICU accepted both (a refusal of either throws above)
    if (!knownLocaleAndZone) icu.remember(locale, timezone);
    const result = await opened.fill({
      values,
      flatten: !flags['no-flatten'],
      watermark: flags.watermark ? 'formcast' : undefined,
      calculate,
    });
    const rejected = scriptRejectionWarnings(analysis.fields, result.scriptRejections, strict);
    const out = signing ? await signing.sign(result.bytes, analysis, values, fonts) : result.bytes;
    await writeFile(flags.output, out);
    for (const w of [...warnings, ...result.warnings, ...rejected]) console.error(`warning: ${w}`);
    const signedBy = signing ? `, signed by ${signing.subject}${flags.tsa ? ', time-stamped' : ''}` : '';
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
