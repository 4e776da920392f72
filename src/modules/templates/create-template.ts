import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { PlanName } from '../../plans.js';
import { lockAccount } from '../accounts/account-records.js';
import { checkDescription, checkName } from './template-input.js';
import { toTemplateView, type TemplateView } from './template-view.js';
import { countTemplates, insertTemplate } from './template-records.js';
import { publishEvent } from '../events/publish-event.js';
import { PdfEngineError, type TemplateAnalysis } from '../../pdf/types.js';
import { detectNewForm, type DetectionOutcome, type DetectionView } from './detect-new-form.js';

export interface CreateTemplateInput {
  bytes: Uint8Array;
  fileName: string;
  name?: string;
  description?: string;
  /** a file without a form gets its fields detected instead of answering INVALID_PDF */
  detectFields?: boolean;
}

export function templateBlobKey(accountId: string, templateId: string): string {
  // A fresh key per version, so replacing a file never overwrites bytes a running render is reading.
  return `templates/${accountId}/${templateId}/${newId('tpl').slice(4)}.pdf`;
}

function limitReached(used: number, limit: number, plan: string) {
  return new AppError(
    'TEMPLATE_LIMIT_REACHED',
    `Template limit reached: ${used}/${limit} templates on the ${plan} plan`,
    { used, limit },
  );
}

export async function createTemplate(
  deps: Deps,
  account: { id: string; plan: PlanName },
  input: CreateTemplateInput,
): Promise<TemplateView & { detections?: DetectionView[]; detectionWarnings?: string[] }> {
  // 1. validate the text fields
  const name = checkName(input.name ?? input.fileName);
  const description = checkDescription(input.description ?? '');
  const limit = deps.plans[account.plan].templates;

  // 2. fail fast on a full quota before the costly analysis (the exact check is in step 5)
  const held = await countTemplates(deps.db, account.id);
  if (held >= limit) throw limitReached(held, limit, account.plan);

  // 3. analyse: INVALID_PDF for non-PDFs and PDFs without fillable fields, unless detection is asked
  //    for: then the detected fields are added and the file with them is the template
  let bytes = input.bytes;
  let detected: DetectionOutcome | undefined;
  let analysis: TemplateAnalysis;
  try {
    analysis = await deps.engine.analyse(bytes, { tenant: account.id });
  } catch (err) {
    if (!input.detectFields || !(err instanceof PdfEngineError && err.code === 'INVALID_PDF')) throw err;
    const form = await detectNewForm(deps, bytes, account.id);
    ({ bytes, analysis } = form);
    detected = { detections: form.detections, warnings: form.warnings };
  }

  // 4. blob first, then the record that points at it
  const id = newId('tpl');
  const blobKey = templateBlobKey(account.id, id);
  await deps.blobs.put(blobKey, bytes);

  // 5. exact quota check and insert in one transaction
  const at = deps.clock.now();
  const now = at.toISOString();
  const row = {
    id,
    account_id: account.id,
    name,
    description,
    file_name: input.fileName,
    file_size: bytes.byteLength,
    field_count: analysis.fields.length,
    page_count: analysis.pageCount,
    is_frozen: 0,
    version: 1,
    blob_key: blobKey,
    analysis: JSON.stringify(analysis),
    field_settings: '{}',
    created_at: now,
    updated_at: now,
  };
  try {
    await deps.db.transaction().execute(async (trx) => {
      await lockAccount(trx, deps.dbKind, account.id);
      const used = await countTemplates(trx, account.id);
      if (used >= limit) throw limitReached(used, limit, account.plan);
      await insertTemplate(trx, row);
      const event = { accountId: account.id, type: 'template.created' as const, data: toTemplateView(row) };
      await publishEvent(trx, { ...event, traceparent: deps.tracer.traceparent() }, at);
    });
  } catch (err) {
    await deps.blobs.delete(blobKey).catch(() => undefined);
    throw err;
  }
  const view = toTemplateView(row);
  if (!input.detectFields) return view;
  // asked for detection on a file that already has a form: nothing detected, the form as it is
  return { ...view, detections: detected?.detections ?? [], detectionWarnings: detected?.warnings ?? [] };
}
