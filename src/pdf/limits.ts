// Ceilings that keep a hostile or pathological PDF from exhausting the analyser or filler.
// Real forms stay far below them (the largest corpus form has 726 fields on 13 pages).

export interface AnalyseLimits {
  /** Input size in bytes; checked before parsing. */
  maxBytes: number;
  /** Pages in the page tree. */
  maxPages: number;
  /** Fillable fields reported. */
  maxFields: number;
  /** Field-tree nodes and widget annotations visited together. */
  maxNodes: number;
  /** Nesting depth of the page tree, the field tree and /Parent chains. */
  maxDepth: number;
  /** Wall-clock budget for parsing the file (real forms parse in well under a second). */
  maxParseMs: number;
  /** Wall-clock budget for reading page text for captions (a cold worker loads pdf.js first); past it, no page captions. */
  maxLabelMs: number;
  /** Text items read for captions, all pages together (a page of text is a few hundred to a few thousand). */
  maxTextItems: number;
  /**
   * Decoded size of one content stream (a page's, a form XObject's, a font's, an appearance's); the
   * largest of the corpus is 2.5 MB. Past it a stream is a decompression bomb to us (issue 27).
   */
  maxStreamBytes: number;
  /** Decoded size of all the streams the analysis checks together (the corpus's largest form: 6.5 MB). */
  maxDecodedBytes: number;
}

export const DEFAULT_LIMITS: Readonly<AnalyseLimits> = Object.freeze({
  maxBytes: 64 * 1024 * 1024,
  maxPages: 2000,
  maxFields: 5000,
  maxNodes: 50_000,
  maxDepth: 64,
  maxParseMs: 10_000,
  maxLabelMs: 10_000,
  maxTextItems: 200_000,
  maxStreamBytes: 64 * 1024 * 1024,
  maxDecodedBytes: 256 * 1024 * 1024,
});

/** Fills in defaults and drops nonsense values (non-positive or non-integer) for safe ones. */
export function resolveLimits(partial?: Partial<AnalyseLimits>): AnalyseLimits {
  const out: AnalyseLimits = { ...DEFAULT_LIMITS };
  if (!partial) return out;
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof AnalyseLimits)[]) {
    const value = partial[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) out[key] = Math.floor(value);
  }
  return out;
}

/** Ceilings of one field-editing request (edit/): the dashboard saves a session's edits in one go. */
export interface EditLimits extends AnalyseLimits {
  /** Edits in one request: a person drawing a form adds a few dozen fields per session, not thousands. */
  maxEdits: number;
  /** Options of one dropdown or radio group (the largest corpus list, countries, has about 250). */
  maxOptions: number;
}

export const DEFAULT_EDIT_LIMITS: Readonly<EditLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  maxEdits: 1000,
  maxOptions: 1000,
});

/** resolveLimits for edits: defaults filled in, nonsense values replaced by safe ones. */
export function resolveEditLimits(partial?: Partial<EditLimits>): EditLimits {
  const out: EditLimits = { ...DEFAULT_EDIT_LIMITS, ...resolveLimits(partial) };
  for (const key of ['maxEdits', 'maxOptions'] as const) {
    const value = partial?.[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) out[key] = Math.floor(value);
  }
  return out;
}
