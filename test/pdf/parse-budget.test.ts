// The parse budget reaches every parser a budgeted load starts, the second (decrypting) parse of an
// encrypted file included, and no other load. Checked through the parsers' tick hook with the clock
// moved past every deadline, so nothing here depends on how fast the machine parses.
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument, PDFParser } from '@cantoo/pdf-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadPdf } from '../../src/pdf/load.js';
import { ParseBudgetExceeded } from '../../src/pdf/parse-budget.js';
import { corpusDir } from '../helpers/corpus.js';

const dir = corpusDir();
const FORM = dir ? path.join(dir, 'pdfs', 'vitality-rebate-aes-encrypted.pdf') : '';

interface Ticking {
  shouldWaitForTick(): boolean;
}
const factory = PDFParser as unknown as { forBytesWithOptions: (...args: unknown[]) => Ticking };

/** The parsers created while `fn` runs. */
async function parsersOf(fn: () => Promise<unknown>): Promise<Ticking[]> {
  const made: Ticking[] = [];
  const original = factory.forBytesWithOptions;
  factory.forBytesWithOptions = (...args: unknown[]) => {
    const parser = original(...args);
    made.push(parser);
    return parser;
  };
  try {
    await fn();
  } finally {
    factory.forBytesWithOptions = original;
  }
  return made;
}

describe.skipIf(!dir || !fs.existsSync(FORM))('parse budget', () => {
  afterEach(() => vi.restoreAllMocks());

  it('bounds both parses of an encrypted file, and only the budgeted load', async () => {
    const bytes = () => new Uint8Array(fs.readFileSync(FORM));
    await loadPdf(bytes()); // installs the budget's wrap of the parser factory
    const budgeted = await parsersOf(() => loadPdf(bytes(), { maxParseMs: 60_000 }));
    const plain = await parsersOf(() => PDFDocument.load(bytes(), { ignoreEncryption: true, password: '' }));
    expect(budgeted).toHaveLength(2); // the file's structure, then its objects decrypted
    expect(plain).toHaveLength(2);
    const now = performance.now();
    vi.spyOn(performance, 'now').mockReturnValue(now + 3_600_000); // every deadline has passed
    for (const parser of budgeted) expect(() => parser.shouldWaitForTick()).toThrow(ParseBudgetExceeded);
    for (const parser of plain) expect(typeof parser.shouldWaitForTick()).toBe('boolean');
  });
});
