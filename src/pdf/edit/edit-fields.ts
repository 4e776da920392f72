// The field editor's engine: template bytes + a list of edits in, the edited template out. Every edit
// is checked first against the form as it stands (validate-edits.ts); any problem throws one
// FieldEditError listing them all and nothing is written. Then the edits are applied in order, the
// appearances they call for are drawn, and the result is written as an incremental update of the
// original file (every byte of it kept), or, for an encrypted or damaged original, as one decrypted
// revision. Other failures are PdfEngineErrors.
import { FontSet } from '../fonts/fonts.js';
import { FontLibrary } from '../fonts/font-library.js';
import { FontSubsets } from '../fonts/unicode-font.js';
import { collectFields } from '../field-tree.js';
import { resolveEditLimits, type EditLimits } from '../limits.js';
import { loadPdf } from '../load.js';
import { collectPages } from '../pages.js';
import { N, getDict } from '../pdf-objects.js';
import { dropUsageRights } from '../sanitize/output-removals.js';
import { FieldEditError, PdfEngineError, type FieldEdit } from '../types.js';
import { ChangeTracker } from '../writer/change-tracker.js';
import { findStartXref, writeIncrement } from '../writer/incremental-writer.js';
import { dropEncryptionAndXrefStreams } from '../writer/plain-objects.js';
import type { EditContext } from './edit-context.js';
import { updateField } from './field-changes.js';
import { deleteField } from './field-removal.js';
import { buildOutline } from './form-outline.js';
import { addField } from './new-field.js';
import { drawQueued } from './redraw.js';
import { validateEdits } from './validate-edits.js';

/** Whether `startxref` points at a cross-reference section (a table, or an XRef stream object). */
function xrefIntact(bytes: Uint8Array, startXref: number): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(
    'latin1',
    startXref,
    Math.min(bytes.length, startXref + 32),
  );
  return /^\s*(xref|\d+\s+\d+\s+obj)/.test(head);
}

function apply(ec: EditContext, edit: FieldEdit): void {
  if (edit.op === 'add') addField(ec, edit.field);
  else if (edit.op === 'update') updateField(ec, ec.fields.get(edit.name)!, edit.changes);
  else deleteField(ec, ec.fields.get(edit.name)!);
}

/**
 * Applies `edits` in order and returns the new file. Throws FieldEditError (nothing applied) when any
 * edit cannot be, PdfEngineError when the file cannot be read or written.
 */
export async function editFields(
  bytes: Uint8Array,
  edits: readonly FieldEdit[],
  limits?: Partial<EditLimits>,
): Promise<Uint8Array> {
  const lim = resolveEditLimits(limits);
  // Too many edits is known before the file is parsed.
  if (Array.isArray(edits) && edits.length > lim.maxEdits) {
    throw new FieldEditError([
      { field: '', message: `${edits.length} edits in one request; at most ${lim.maxEdits} are allowed` },
    ]);
  }
  const {
    doc,
    context: ctx,
    catalog,
    encrypted,
  } = await loadPdf(bytes, {
    maxBytes: lim.maxBytes,
    maxParseMs: lim.maxParseMs,
  });
  try {
    const startXref = findStartXref(bytes);
    const incremental = !encrypted && startXref !== undefined && xrefIntact(bytes, startXref);
    // Mapped before anything changes: what the edits touch is what the update writes.
    const tracker = incremental ? new ChangeTracker(ctx) : undefined;
    const pages = collectPages(ctx, catalog, lim);
    const fields = collectFields(ctx, getDict(catalog, 'AcroForm'), pages, lim);
    const problems = validateEdits(buildOutline(ctx, pages, fields), edits, lim);
    if (problems.length > 0) throw new FieldEditError(problems);

    tracker?.begin();
    const ec: EditContext = {
      doc,
      ctx,
      catalog,
      pages,
      fonts: new FontSet(doc, new FontLibrary(), new FontSubsets()),
      fields: new Map(),
      redraw: new Set(),
    };
    // The first field of a name is the one the analysis describes (and the outline checked).
    for (const f of fields) if (f.fullName !== '' && !ec.fields.has(f.fullName)) ec.fields.set(f.fullName, f);
    for (const edit of edits) apply(ec, edit);
    drawQueued(ec);
    // An XFA viewer (Acrobat) would show the old XFA form instead of the edited fields, and usage
    // rights signed over the old file would be reported as broken.
    catalog.delete(N('NeedsRendering'));
    getDict(catalog, 'AcroForm')?.delete(N('XFA'));
    dropUsageRights(catalog);
    await doc.flush(); // the fonts the appearances use

    if (tracker) {
      const update = writeIncrement(ctx, { bytes, startXref: startXref! }, tracker.changed(), tracker.baseMax);
      const out = new Uint8Array(bytes.length + update.length);
      out.set(bytes, 0);
      out.set(update, bytes.length);
      return out;
    }
    dropEncryptionAndXrefStreams(ctx);
    return await doc.save({ useObjectStreams: false, updateFieldAppearances: false, objectsPerTick: Infinity });
  } catch (err) {
    if (err instanceof FieldEditError || err instanceof PdfEngineError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    throw new PdfEngineError('INVALID_PDF', `the PDF form could not be edited (${msg.slice(0, 200)})`);
  }
}
