import type { Readable } from 'node:stream';
import type { FieldEdit, FillRequest, FillResult, TemplateAnalysis } from '../pdf/types.js';
import type { PreparedSignature } from '../pdf/merge/combine.js';
import type { SignatureSlot } from '../pdf/seal/signature-placeholder.js';
import type { ExistingForm } from '../pdf/detect/detect.js';
import type { DetectedForm } from '../pdf/detect/detect-form.js';

// What an engine throws besides PdfEngineError, part of this port's contract. Defined in src/errors.ts
// (visible to every layer; http/error-handler.ts maps them) and named here so callers of the port need
// not know an adapter.
export { EngineBusyError, EngineCrashedError } from '../errors.js';
export interface EngineCallOptions {
  /**
   * `interactive` (default): someone waits for the answer; `background`: async and batch work, which runs
   * only when no interactive job waits and is not refused by the admission check (the job runner bounds it).
   */
  priority?: 'interactive' | 'background';
  /**
   * Whose work it is (an account id): a pool shares its workers fairly between tenants, and one whose
   * jobs are slow cannot hold every worker.
   */
  tenant?: string;
}

/** One item of a combine: its file, opened only when the engine gets to it. */
export interface CombineSource {
  open(): Promise<Readable>;
  /** the render was flattened (see pdf/merge/combine.ts CombineItem) */
  flattened: boolean;
}

export interface CombineOptions extends EngineCallOptions {
  /**
   * Sign the combined file as a whole: the engine writes an invisible signature field with this
   * dictionary's text, fills its byte range and hashes it (CombinedFile.signature); the caller, who
   * holds the key, writes the CMS into the file. Nobody reads the combined file back to sign it.
   */
  signature?: SignatureSlot;
}

/**
 * A combined PDF in a temporary file of the engine's: the caller stores it from `path`, then calls
 * `dispose` (which removes it) whatever happened.
 */
export interface CombinedFile {
  path: string;
  size: number;
  /** when CombineOptions.signature was given: where the CMS goes and the digest it signs */
  signature?: PreparedSignature;
  dispose(): Promise<void>;
}

/**
 * The PDF engine as the service sees it: pure work on bytes. Implementations may run in-process or in a
 * worker pool; either way they reject with PdfEngineError for input they cannot handle, EngineBusyError
 * when they cannot take the job in time, and EngineCrashedError when the process running it was lost.
 */
export interface RenderEngine {
  analyse(bytes: Uint8Array, opts?: EngineCallOptions): Promise<TemplateAnalysis>;
  /**
   * `cacheKey` names the template version (unique per content, e.g. its blob key): the engine keeps
   * the template prepared under it, and a worker pool need not send the bytes to a worker that has
   * it. Without a key, engines fall back to hashing the bytes.
   */
  fill(
    template: Uint8Array,
    analysis: TemplateAnalysis,
    request: FillRequest,
    cacheKey?: string,
    opts?: EngineCallOptions,
  ): Promise<FillResult>;
  /**
   * One PDF of every item, in order (batch `combine`, see pdf/merge/combine.ts): flattened items merge as
   * pages, unflattened ones keep working fields renamed per copy. Items are read one at a time and the
   * result is written to a file, so neither all items nor the result are ever held in memory at once.
   */
  combine(items: readonly CombineSource[], opts?: CombineOptions): Promise<CombinedFile>;
  /**
   * The template with `edits` applied (pdf/edit/edit-fields.ts): rejects with FieldEditError, listing
   * every problem, when any edit cannot be applied (nothing is then written).
   */
  editFields(template: Uint8Array, edits: readonly FieldEdit[], opts?: EngineCallOptions): Promise<Uint8Array>;
  /**
   * The fields detected in a PDF's drawing and text, added to it as real fields (pdf/detect/): the
   * file with them (null when none was found) and the detections. `existing` is what the form
   * already has: detections over its widgets are skipped and its keys are not reused.
   */
  detectFields(template: Uint8Array, existing?: ExistingForm, opts?: EngineCallOptions): Promise<DetectedForm>;
  close?(): Promise<void>;
  /**
   * Throws EngineBusyError when a job submitted now could not start within the engine's wait budget:
   * callers check it before any expensive work (template load, validation, quota). Absent for the
   * in-process engine.
   */
  admit?(): void;
  /** pool occupancy, for metrics; absent for the in-process engine */
  stats?(): { queued: number; active: number; size: number };
}
