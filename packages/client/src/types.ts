import type { components } from './generated/schema.js';

// Friendly names for the API's component schemas (generated from openapi/openapi.json).
type Schemas = components['schemas'];

export type Template = Schemas['Template'];
export type TemplateSchema = Schemas['TemplateSchema'];
export type SchemaField = Schemas['SchemaField'];
export type TemplatePatch = Schemas['TemplatePatch'];
export type TemplateFieldsPatch = Schemas['TemplateFieldsPatch'];
export type TemplateReplaced = Schemas['TemplateReplaced'];
/** The render data of a template version as a JSON Schema (draft 2020-12). */
export type TemplateJsonSchema = Schemas['TemplateJsonSchema'];
/** An uploaded template; with `detectFields`, the fields detected in it (`detections`). */
export type TemplateCreated = Schemas['TemplateCreated'];
/** A field found in a page's drawing and text: key, type, page, box, label and confidence. */
export type Detection = Schemas['Detection'];
export type DetectedFields = Schemas['DetectedFields'];
export type FieldMapping = Schemas['FieldMapping'];
/** A field's script that uses an API the render-time sandbox does not offer (SchemaField.unsupportedScripts). */
export type UnsupportedScript = Schemas['UnsupportedScript'];
export type TemplateVersion = Schemas['TemplateVersion'];
export type FieldPatch = Schemas['FieldPatch'];
/** One edit of the PDF's form fields: `add` a NewField, `update` one with FieldChanges, `delete` one. */
export type FieldEdit = Schemas['TemplateFieldEdits']['edits'][number];
export type NewField = Schemas['NewField'];
export type FieldChanges = Schemas['FieldChanges'];

/** pending (accepted, not finished: async renders and batch items), completed, or failed. */
export type RenderStatus = 'pending' | 'completed' | 'failed';
/** A render just made (201 `completed`) or accepted asynchronously (202 `pending`, no link yet). */
export type Render = Omit<Schemas['Render'], 'status'> & { status: Exclude<RenderStatus, 'failed'> };
export type RenderDetail = Omit<Schemas['RenderDetail'], 'status'> & { status: RenderStatus };
export type RenderListItem = Omit<Schemas['RenderListItem'], 'status'> & { status: RenderStatus };
export type RenderOptions = Schemas['RenderOptions'];
/**
 * A render's request. `TData` types `data`: pass the interface `formcast types` wrote for the template,
 * e.g. `renders.create<IrsFw92024Data>({ templateId, data })`.
 */
export type RenderRequest<TData extends object = Record<string, unknown>> = Omit<Schemas['RenderRequest'], 'data'> & {
  data: TData;
};
/** A preview's data and options (no template id: it is in the path). */
export type PreviewRequest<TData extends object = Record<string, unknown>> = Omit<Schemas['PreviewRequest'], 'data'> & {
  data: TData;
};

/** pending (items running, or the combined file being built) or completed. */
export type BatchStatus = 'pending' | 'completed';
export type RenderBatch = Omit<Schemas['RenderBatch'], 'status' | 'items'> & {
  status: BatchStatus;
  items: (Omit<Schemas['RenderBatch']['items'][number], 'status'> & { status: RenderStatus })[];
};
export type RenderBatchRequest<TData extends object = Record<string, unknown>> = Omit<
  Schemas['RenderBatchRequest'],
  'items'
> & { items: RenderRequest<TData>[] };

export type Usage = Schemas['Usage'];
export type RenderVerification = Schemas['RenderVerification'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
/** The account's render defaults (null: the server's) and what they resolve to (`effective`). */
export type AccountSettings = Schemas['AccountSettings'];
export type AccountSettingsPatch = Schemas['AccountSettingsPatch'];

export type SigningCertificate = Schemas['SigningCertificate'];
export type SigningCertificateUpload = Schemas['SigningCertificateUpload'];

export type WebhookEndpoint = Schemas['WebhookEndpoint'];
/** An endpoint as created or rotated: with its signing secret (whsec_...), shown only then. */
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookEndpointCreate = Schemas['WebhookEndpointCreate'];
export type WebhookEndpointPatch = Schemas['WebhookEndpointPatch'];
export type WebhookEndpointLogEntry = Schemas['WebhookEndpointLogEntry'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryWithPayload = Schemas['WebhookDeliveryWithPayload'];
export type WebhookDeliveryStatus = WebhookDelivery['status'];

export type PageMeta = Schemas['PageMeta'];
export type ErrorCode = Schemas['ErrorCode'];
export type ErrorEnvelope = Schemas['Error'];

/** One page of a list: `{ data, meta: { page, limit, total } }`. */
export interface Page<T> {
  data: T[];
  meta: PageMeta;
}
