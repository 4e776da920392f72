// ICU's answers to "is this locale, this time zone known?", kept between runs of the offline CLI. The
// first Intl call of a process costs it ~25 ms (V8 builds the list of ICU's locales): 4-8 % of a one-shot
// render that needs no other Intl call. The answers depend only on the ICU data Node runs with, so one
// small file per Node, ICU, CLDR and tz version (and ICU data option) in the CLI's cache folder holds the
// pairs already checked. Only pairs ICU accepted are kept: a refused one is checked, and refused, each time.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { codeCacheFolder } from './code-cache.js';

/** Pairs kept at most (a user with more locales than this just pays the check for the others). */
const MAX_PAIRS = 64;

export interface IntlAnswers {
  /** Whether ICU accepted this locale and this time zone in an earlier run. */
  known(locale: string, timezone: string): boolean;
  /** Records a pair ICU accepted in this run; never throws (the file is an optimisation). */
  remember(locale: string, timezone: string): void;
}

/** `folder`: the CLI's cache folder (null: nothing is kept). */
export function intlAnswers(folder: string | null = codeCacheFolder() ?? null): IntlAnswers {
  const file = folder ? path.join(folder, `intl-${icuIdentity()}.json`) : undefined;
  const pairs = file ? readPairs(file) : [];
  const key = (locale: string, timezone: string) => `${locale}\n${timezone}`;
  return {
    known: (locale, timezone) => pairs.includes(key(locale, timezone)),
    remember(locale, timezone) {
      const k = key(locale, timezone);
      if (!file || pairs.includes(k)) return;
      writePairs(file, [k, ...pairs].slice(0, MAX_PAIRS));
    },
  };
}

/** What ICU's answers depend on: Node's ICU, its data and the options that point it at other data. */
function icuIdentity(): string {
  const v = process.versions;
  const parts = [v.node, v.icu, v.unicode, v.cldr, v.tz, process.env.NODE_ICU_DATA ?? '', process.execArgv.join(' ')];
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 24);
}

function readPairs(file: string): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string').slice(0, MAX_PAIRS) : [];
  } catch {
    return []; // none yet, or unreadable: ICU answers
  }
}

/** Written under a name of its own, then renamed: a concurrent run reads the old file or the new. */
function writePairs(file: string, pairs: string[]): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(pairs), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // never written
    }
  }
}
