import type { Config, RenderDefaults } from '../../config.js';
import type { Deps } from '../../deps.js';
import { validationError } from '../../errors.js';
import { checkLocaleSetting, checkTimeZoneSetting } from '../render-data/locale-setting.js';
import { findAccountSettings, updateAccountSettings, type AccountSettingsRow } from './account-records.js';

// GET/PATCH /account/settings: the account's render defaults, between a template's and the operator's
// (render-data/render-defaults.ts applies them).

export interface AccountSettings {
  /** null: the operator's DEFAULT_LOCALE */
  locale: string | null;
  /** null: the operator's DEFAULT_TIMEZONE */
  timezone: string | null;
  /** what a render uses when neither its request nor its template gives a value */
  effective: RenderDefaults;
}

export interface AccountSettingsPatch {
  locale?: string | null;
  timezone?: string | null;
}

type SettingsDeps = Pick<Deps, 'db'> & { config: Pick<Config, 'renderDefaults'> };

function toView(row: AccountSettingsRow, operator: RenderDefaults): AccountSettings {
  const locale = row.default_locale ?? null;
  const timezone = row.default_timezone ?? null;
  return {
    locale,
    timezone,
    effective: { locale: locale ?? operator.locale, timezone: timezone ?? operator.timezone },
  };
}

// the auth hook found the account a moment ago: its absence now is a fault, not the caller's
const vanished = (accountId: string) => new Error(`Account "${accountId}" is gone`);

export async function getAccountSettings(deps: SettingsDeps, accountId: string): Promise<AccountSettings> {
  const row = await findAccountSettings(deps.db, accountId);
  if (!row) throw vanished(accountId);
  return toView(row, deps.config.renderDefaults);
}

/** PATCH: at least one of locale, timezone; null sets one back to the operator's. */
export async function updateAccountSettingsOf(
  deps: SettingsDeps,
  accountId: string,
  patch: AccountSettingsPatch,
): Promise<AccountSettings> {
  if (patch.locale === undefined && patch.timezone === undefined)
    throw validationError({ field: 'body', expected: 'at least one of locale, timezone', received: 'none' });
  const changes: AccountSettingsRow = {};
  if (patch.locale !== undefined) changes.default_locale = checkLocaleSetting(patch.locale);
  if (patch.timezone !== undefined) changes.default_timezone = checkTimeZoneSetting(patch.timezone);
  if (!(await updateAccountSettings(deps.db, accountId, changes))) throw vanished(accountId);
  return getAccountSettings(deps, accountId);
}
