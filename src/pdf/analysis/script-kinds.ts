// What a form's script is, read statically from its text: the kind of calculation (AFSimple_Calculate,
// simplified field notation, custom) and the fields it reads, the AF* built-in of a format, keystroke or
// validate action, and the APIs the render-time sandbox will not offer. Pure string work, linear in the
// text; nothing here runs a script. A script is an AF* kind only when that call is all it does.
import { readStringLiteral } from './format-action.js';
import type { CalculationKind, ScriptKind, UnsupportedScript } from '../types.js';

/**
 * The script with comments removed and the contents of string literals blanked (quotes kept), so that
 * words inside strings and comments are not mistaken for calls. Regular-expression literals are not
 * recognised: a quote inside one may blank the rest of the line, which only makes the scan see less.
 */
function codeOnly(js: string): string {
  let out = '';
  let i = 0;
  while (i < js.length) {
    const c = js[i];
    const d = js[i + 1];
    if (c === '/' && d === '/') {
      while (i < js.length && js[i] !== '\n' && js[i] !== '\r') i++;
    } else if (c === '/' && d === '*') {
      const end = js.indexOf('*/', i + 2);
      i = end < 0 ? js.length : end + 2;
      out += ' ';
    } else if (c === '"' || c === "'" || c === '`') {
      out += c;
      i++;
      while (i < js.length && js[i] !== c && js[i] !== '\n') i += js[i] === '\\' ? 2 : 1;
      out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const SIMPLE_OPS: Record<string, CalculationKind> = {
  SUM: 'sum',
  PRD: 'product',
  AVG: 'average',
  MIN: 'minimum',
  MAX: 'maximum',
};

/** The only statement: `AFSimple_Calculate(...)` with at most one level of nested parentheses (new Array(...)). */
const ONLY_SIMPLE_CALC = /^AFSimple_Calculate\s*\((?:[^()]|\([^()]*\))*\)\s*;?$/;

/** String literals of a list: `new Array("a", "b")`, `["a", "b"]`, or one string "a, b" (AFMakeArrayFromList). */
function literalList(src: string, start: number): string[] | undefined {
  let i = start;
  const ws = () => {
    while (i < src.length && /\s/.test(src[i])) i++;
  };
  ws();
  if (src[i] === '"' || src[i] === "'") {
    const lit = readStringLiteral(src, i);
    return lit?.value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
  const open = /^new\s+Array\s*\(/.exec(src.slice(i, i + 40));
  let close: string;
  if (open) {
    i += open[0].length;
    close = ')';
  } else if (src[i] === '[') {
    i++;
    close = ']';
  } else return undefined;
  const names: string[] = [];
  for (;;) {
    ws();
    if (src[i] === close && names.length === 0) return names;
    if (src[i] !== '"' && src[i] !== "'") return undefined;
    const lit = readStringLiteral(src, i);
    if (!lit) return undefined;
    names.push(lit.value);
    i = lit.end;
    ws();
    if (src[i] === close) return names;
    if (src[i] !== ',') return undefined;
    i++;
  }
}

/** Field names of a simplified field notation expression ("N\.CASS - N\.CASSNONDED * 2"). */
function notationNames(expr: string): string[] {
  const names: string[] = [];
  let cur = '';
  const flush = () => {
    const name = cur.trim();
    if (name && !/^\d+(?:\.\d*)?$|^\.\d+$/.test(name)) names.push(name);
    cur = '';
  };
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (c === '\\' && i + 1 < expr.length) cur += expr[++i];
    else if (/[\s+\-*/()]/.test(c)) flush();
    else cur += c;
  }
  flush();
  return [...new Set(names)];
}

const SFN = /\/\*\*\s*BVCALC([\s\S]{0,8192}?)EVCALC\s*\*\*\//;

/** The kind of a calculate script and, for AFSimple_Calculate and simplified field notation, what it reads. */
export function calculationOf(js: string): { kind: CalculationKind; reads?: string[] } {
  const sfn = SFN.exec(js);
  if (sfn) return { kind: 'simplified', reads: notationNames(sfn[1]) };
  const code = codeOnly(js).trim();
  if (!ONLY_SIMPLE_CALC.test(code)) return { kind: 'custom' };
  // the call is the whole script: read its arguments from the original text (strings intact)
  const call = /AFSimple_Calculate\s*\(\s*/.exec(js);
  if (!call) return { kind: 'custom' };
  const opStart = call.index + call[0].length;
  const op = js[opStart] === '"' || js[opStart] === "'" ? readStringLiteral(js, opStart) : undefined;
  const kind = op ? SIMPLE_OPS[op.value.trim().toUpperCase()] : undefined;
  if (!op || !kind) return { kind: 'custom' };
  const comma = /^\s*,/.exec(js.slice(op.end, op.end + 64));
  const reads = comma ? literalList(js, op.end + comma[0].length) : undefined;
  return reads ? { kind, reads: [...new Set(reads)] } : { kind };
}

const ONLY_AF_CALL = /^(AFNumber|AFPercent|AFDate|AFTime|AFSpecial|AFRange)_(\w+)\s*\([^()]*\)\s*;?$/;

/** The kind of a format, keystroke or validate script; undefined when it does nothing (empty or comments). */
export function scriptKindOf(js: string): ScriptKind | undefined {
  const code = codeOnly(js).trim();
  if (code === '' || /^[;\s]*$/.test(code)) return undefined;
  const m = ONLY_AF_CALL.exec(code);
  if (!m) return 'custom';
  if (m[1] === 'AFRange') return m[2] === 'Validate' ? 'AFRange_Validate' : 'custom';
  return /^(Format|FormatEx|Keystroke|KeystrokeEx)$/.test(m[2]) ? (m[1] as ScriptKind) : 'custom';
}

/** An API the sandbox does not offer: how it is spotted in code and why it cannot run at render time. */
const UNSUPPORTED: { api: string; pattern: RegExp; reason: string }[] = [
  {
    api: 'app.alert',
    // a reply is used when the call's value is compared, assigned, returned or passed on
    // (bounded: a script of many unclosed calls must not cost a scan to its end for each)
    pattern: /(?:[=(!,?:&|]|\breturn)\s*app\.alert\s*\(|\bapp\.alert\s*\([^()]{0,400}\)\s*(?:[=!<>]=?|[?&|])/,
    reason: 'asks the person a question and uses the answer: nobody answers at render time',
  },
  { api: 'app.response', pattern: /\bapp\.response\s*\(/, reason: 'asks the person to type an answer' },
  { api: 'xfa', pattern: /\bxfa\s*\./, reason: 'uses the XFA form model, which rendered PDFs leave out' },
  { api: 'mail', pattern: /\bmail(?:Doc|Form|Msg|GetAddrs)\s*\(/, reason: 'sends e-mail' },
  { api: 'SOAP', pattern: /\bSOAP\s*\./, reason: 'calls a web service' },
  { api: 'Net', pattern: /\bNet\s*\./, reason: 'uses the network' },
  { api: 'ADBC', pattern: /\bADBC\s*\./, reason: 'connects to a database' },
  { api: 'submitForm', pattern: /\bsubmitForm\s*\(/, reason: 'sends the form to a server' },
  { api: 'launchURL', pattern: /\b(?:launchURL|getURL)\s*\(/, reason: 'opens a web page' },
  {
    api: 'importDataObject',
    pattern:
      /\b(?:importDataObject|exportDataObject|importTextData|importAnFDF|importAnXFDF|importXFAData|browseForDoc|buttonImportIcon|readFileIntoStream)\s*\(/,
    reason: 'reads or writes files on the computer',
  },
  { api: 'print', pattern: /(?:^|[^.\w$])print\s*\(|\.print\s*\(/, reason: 'prints the document' },
  { api: 'saveAs', pattern: /\bsaveAs\s*\(/, reason: 'saves the document' },
  { api: 'app.execMenuItem', pattern: /\bexecMenuItem\s*\(/, reason: "runs a viewer's menu command" },
  {
    api: 'app.openDoc',
    pattern: /\bapp\.(?:openDoc|newDoc)\s*\(|\bcloseDoc\s*\(/,
    reason: 'opens or closes documents',
  },
  {
    api: 'app.setTimeOut',
    pattern: /\bapp\.(?:setTimeOut|setInterval)\s*\(/,
    reason: 'starts a timer: nothing waits for it at render time',
  },
];

/** The APIs of a script the sandbox will not run, each once, in the order of the list above. */
export function unsupportedApis(js: string): Omit<UnsupportedScript, 'action'>[] {
  const code = codeOnly(js);
  return UNSUPPORTED.filter((u) => u.pattern.test(code)).map(({ api, reason }) => ({ api, reason }));
}

/** Names of the functions a document-level script declares (first 100). */
export function declaredFunctions(js: string): string[] {
  const code = codeOnly(js);
  const names = new Set<string>();
  const re = /\bfunction\s+([A-Za-z_$][\w$]*)\s*\(|([A-Za-z_$][\w$.]*)\s*=\s*function\b/g;
  for (let m = re.exec(code); m && names.size < 100; m = re.exec(code)) names.add(m[1] ?? m[2]);
  return [...names];
}
