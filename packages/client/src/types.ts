import type { components } from './generated/schema.js';

// Friendly names for the API's component schemas (generated from openapi/openapi.json).
type Schemas = components['schemas'];

export type Template = Schemas['Template'];
export type TemplateSchema = Schemas['TemplateSchema'];
export type SchemaField = Schemas['SchemaField'];
export type TemplatePatch = Schemas['TemplatePatch'];
export type TemplateFieldsPatch = Schemas['TemplateFieldsPatch'];
export type TemplateReplaced = Schemas['TemplateReplaced'];
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
export type Render = Schemas['Render'];
export type RenderDetail = Schemas['RenderDetail'];
export type RenderListItem = Schemas['RenderListItem'];
export type RenderRequest = Schemas['RenderRequest'];
export type RenderOptions = Schemas['RenderOptions'];
export type Usage = Schemas['Usage'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
export type PageMeta = Schemas['PageMeta'];
export type ErrorCode = Schemas['ErrorCode'];
export type ErrorEnvelope = Schemas['Error'];

/** One page of a list: `{ data, meta: { page, limit, total } }`. */
export interface Page<T> {
  data: T[];
  meta: PageMeta;
}
