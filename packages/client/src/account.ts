import type { Context } from './context.js';
import { unwrap } from './transport.js';
import type { AccountSettings, AccountSettingsPatch } from './types.js';

/** client.account: the account's own settings. */
export function accountApi({ raw }: Context) {
  return {
    /** The render defaults (locale, time zone) of the account, and the values they resolve to. */
    getSettings: (): Promise<AccountSettings> => unwrap(raw.GET('/v1/account/settings')).then((r) => r.data),
    /** Change some settings; null sets one back to the server's default. */
    updateSettings: (patch: AccountSettingsPatch): Promise<AccountSettings> =>
      unwrap(raw.PATCH('/v1/account/settings', { body: patch })).then((r) => r.data),
  };
}
