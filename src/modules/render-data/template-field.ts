import type { AnalysedField } from '../../pdf/types.js';

/**
 * A field as a render sees it: what the analyser found, with the team's settings applied
 * (modules/templates/field-settings.ts). `name` is the render key (the team's, else the analyser's) and
 * `required` the effective rule. A plain AnalysedField is a TemplateField without settings.
 */
export interface TemplateField extends AnalysedField {
  /** the team's description of the field */
  description?: string;
  /** drawn when render data omits the key; formatted like data (JSON value as a caller would send it) */
  default?: unknown;
  /** always drawn; render data may not carry the field */
  constant?: unknown;
  /** never drawn; render data for it is ignored with a warning (refused in strict mode) */
  hidden?: true;
}
