// A wall-clock budget for pdf-lib's parser. Its recovery path for damaged objects rescans to the
// end of the file for every unclosed object, so a few hundred KB of junk can keep it busy for
// minutes (measured: 340 KB, ~300 s). pdf-lib calls the parser's per-object tick hook between
// objects; we wrap the parser factory once and, for parses started inside withParseBudget(),
// replace that hook with a deadline check. Other callers of PDFDocument.load are unaffected.
import { AsyncLocalStorage } from 'node:async_hooks';
import { PDFParser } from '@cantoo/pdf-lib';

/** Thrown from inside the parser when the budget is spent. */
export class ParseBudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`parsing took longer than ${budgetMs} ms`);
  }
}

interface Budget {
  deadline: number;
  budgetMs: number;
}

const store = new AsyncLocalStorage<Budget>();
type Factory = (...args: unknown[]) => PDFParser;
const parserClass = PDFParser as unknown as { forBytesWithOptions: Factory };
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const original = parserClass.forBytesWithOptions;
  parserClass.forBytesWithOptions = (...args: unknown[]) => {
    const parser = original(...args);
    const budget = store.getStore();
    if (budget) {
      // Never yield to the event loop (as parseSpeed Fastest); check the clock after every object,
      // since one damaged object can cost a scan of the whole file.
      (parser as unknown as { shouldWaitForTick: () => boolean }).shouldWaitForTick = () => {
        if (performance.now() > budget.deadline) {
          throw new ParseBudgetExceeded(budget.budgetMs);
        }
        return false;
      };
    }
    return parser;
  };
}

/** Runs `fn` (which calls PDFDocument.load) with every parse it starts bounded by `budgetMs`. */
export function withParseBudget<T>(budgetMs: number, fn: () => Promise<T>): Promise<T> {
  install();
  return store.run({ deadline: performance.now() + budgetMs, budgetMs }, fn);
}
