// A wall-clock budget for pdf-lib's parser. Its recovery path for damaged objects rescans to the
// end of the file for every unclosed object, so a few hundred KB of junk can keep it busy for
// minutes (measured: 340 KB, ~300 s). pdf-lib calls the parser's per-object tick hook between
// objects; we wrap the parser factory once and, for parses of bytes handed to withParseBudget(),
// replace that hook with a deadline check. Other callers of PDFDocument.load are unaffected (unless
// they parse the very bytes a budgeted load is parsing: they share its budget then).
//
// The budget is found by the bytes (PDFDocument.load hands the caller's Uint8Array to the parser,
// twice for an encrypted file), not through an AsyncLocalStorage: on Node 20 one of those turns on
// promise hooks for the whole process, a cost every later promise of every render pays. The patch
// and its table are process-wide by nature: they replace a library's static factory.
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

/** The budgets of the loads in progress, by the bytes they parse (the same bytes may be loaded twice at once). */
const budgets = new WeakMap<Uint8Array, Budget[]>();
type Factory = (...args: unknown[]) => PDFParser;
const parserClass = PDFParser as unknown as { forBytesWithOptions: Factory };
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const original = parserClass.forBytesWithOptions;
  parserClass.forBytesWithOptions = (...args: unknown[]) => {
    const parser = original(...args);
    // the earliest deadline of the loads of these bytes (each ends its own)
    const budget = args[0] instanceof Uint8Array ? budgets.get(args[0])?.[0] : undefined;
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

/** Runs `fn` (which calls PDFDocument.load on `bytes`) with every parse of `bytes` bounded by `budgetMs`. */
export async function withParseBudget<T>(bytes: Uint8Array, budgetMs: number, fn: () => Promise<T>): Promise<T> {
  install();
  const budget = { deadline: performance.now() + budgetMs, budgetMs };
  let list = budgets.get(bytes);
  if (!list) budgets.set(bytes, (list = []));
  list.push(budget);
  list.sort((a, b) => a.deadline - b.deadline);
  try {
    return await fn();
  } finally {
    list.splice(list.indexOf(budget), 1);
    if (!list.length) budgets.delete(bytes);
  }
}
