import type { RenderDefaults } from '../../config.js';
import type { Db } from '../../adapters/db/database.js';
import { findAccountSettings } from '../accounts/account-records.js';

// A render's locale and time zone: the request's options, else its template's defaults, else its
// account's (GET/PATCH /account/settings), else the operator's (DEFAULT_LOCALE / DEFAULT_TIMEZONE,
// themselves fr-FR / Europe/Paris unless set). Each is chosen on its own: a template may set only its
// time zone and take the account's locale.

/** A stored level of defaults (a template's or an account's row): null or absent is "the next one's". */
export interface StoredRenderDefaults {
  default_locale?: string | null;
  default_timezone?: string | null;
}

type RequestLocale = { locale?: string; timezone?: string } | undefined;

function renderLocale(
  operator: RenderDefaults,
  stored: { template: StoredRenderDefaults; account: StoredRenderDefaults },
  options: RequestLocale,
): RenderDefaults {
  const { template, account } = stored;
  return {
    locale: options?.locale ?? template.default_locale ?? account.default_locale ?? operator.locale,
    timezone: options?.timezone ?? template.default_timezone ?? account.default_timezone ?? operator.timezone,
  };
}

/** A render's account: its id, and its defaults when the caller has them already (the auth hook reads them). */
export interface RenderAccount {
  id: string;
  renderDefaults?: { locale: string | null; timezone: string | null };
}

/**
 * renderLocale. The account's defaults are the caller's when given; else they are read, and only when the
 * request and the template leave a value open (a job run in the background has no auth hook).
 */
export async function resolveRenderLocale(
  deps: { db: Db; config: { renderDefaults: RenderDefaults } },
  account: RenderAccount,
  template: StoredRenderDefaults,
  options: RequestLocale,
): Promise<RenderDefaults> {
  const open =
    (options?.locale ?? template.default_locale ?? null) === null ||
    (options?.timezone ?? template.default_timezone ?? null) === null;
  let stored: StoredRenderDefaults = {};
  if (account.renderDefaults)
    stored = { default_locale: account.renderDefaults.locale, default_timezone: account.renderDefaults.timezone };
  else if (open) stored = (await findAccountSettings(deps.db, account.id)) ?? {};
  return renderLocale(deps.config.renderDefaults, { template, account: stored }, options);
}
