import { type RenderAccount, resolveRenderLocale } from '../render-data/render-defaults.js';
import type { Deps } from '../../deps.js';
import type { RenderOptions } from '../renders/create-render.js';
import { loadTemplate, parseAnalysis } from './template-view.js';
import { effectiveFields, parseFieldSettings } from './field-settings.js';
import { validateForTemplate } from './validate-for-template.js';
import { loadTemplateBytes } from './template-files.js';
import { scriptRejectionWarnings } from '../render-data/script-rejections.js';

/** Drawn across every page of a preview, whatever the plan or `options.watermark` say. */
const PREVIEW_WATERMARK = 'PREVIEW';

/**
 * POST /templates/:id/preview: the filled PDF for a look before rendering (the dashboard's live
 * preview). Same validation and engine as a render, but nothing is stored or counted against the
 * monthly quota; the PREVIEW watermark keeps it from standing in for a paid render.
 */
export async function previewTemplate(
  deps: Deps,
  accountId: string,
  templateId: string,
  input: { data: Record<string, unknown>; options?: RenderOptions },
  /** the account's, when the caller has them (the auth hook): else read when needed */
  renderDefaults?: RenderAccount['renderDefaults'],
): Promise<{ chunks: readonly Uint8Array[]; warnings: string[] }> {
  deps.engine.admit?.(); // under overload, shed before any work, as a render does
  const template = await loadTemplate(deps, accountId, templateId);
  const options = {
    flatten: true,
    strict: false,
    calculate: true,
    ...input.options,
    ...(await resolveRenderLocale(deps, { id: accountId, renderDefaults }, template, input.options)),
  };
  const analysis = parseAnalysis(deps, template);
  const fields = effectiveFields(analysis.fields, parseFieldSettings(template.field_settings));
  const { values, warnings } = await validateForTemplate(deps.db, { accountId, templateId }, fields, input.data, {
    strict: options.strict,
    locale: options.locale,
    timezone: options.timezone,
    calculate: options.calculate,
  });
  if (input.options?.watermark === false) warnings.push('Previews always carry a PREVIEW watermark');
  const bytes = await loadTemplateBytes(deps, template);
  const result = await deps.engine.fill(
    bytes,
    analysis,
    {
      values,
      flatten: options.flatten,
      watermark: PREVIEW_WATERMARK,
      keepUriLinks: deps.config.outputUriLinks,
      calculate: options.calculate,
    },
    template.blob_key,
    { tenant: accountId },
  );
  warnings.push(
    ...result.warnings,
    ...scriptRejectionWarnings(fields, result.scriptRejections, options.strict, analysis.fields),
  );
  return { chunks: result.chunks ?? [result.bytes], warnings };
}
