import type { RenderDefaults } from '../../config.js';

// A render's locale and time zone: the request's options, else its template's defaults, else the
// operator's (DEFAULT_LOCALE / DEFAULT_TIMEZONE, themselves fr-FR / Europe/Paris unless set). Each is
// chosen on its own: a template may set only its time zone.

export interface TemplateRenderDefaults {
  default_locale?: string | null;
  default_timezone?: string | null;
}

export function renderLocale(
  operator: RenderDefaults,
  template: TemplateRenderDefaults,
  options: { locale?: string; timezone?: string } | undefined,
): RenderDefaults {
  return {
    locale: options?.locale ?? template.default_locale ?? operator.locale,
    timezone: options?.timezone ?? template.default_timezone ?? operator.timezone,
  };
}
