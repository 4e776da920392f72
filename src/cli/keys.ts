import type { Config } from '../config.js';
import { usageError } from './help.js';
import { createDbRuntime } from '../db-runtime.js';
import { getAccount } from '../modules/accounts/accounts.js';
import { issueApiKey, listApiKeys, revokeApiKey } from '../modules/accounts/api-keys.js';
import { AppError } from '../errors.js';
import { fail } from './fail.js';

interface Flags {
  name?: string;
  account?: string;
  key?: string;
  json?: boolean;
}

/** Operator key management. `create` here is not bound by the plan's key quota (operators decide). */
export async function keysCommand(config: Config, sub: string | undefined, flags: Flags): Promise<number> {
  if (!flags.account) return usageError('keys commands need --account ACCOUNT_ID', 'keys');
  const runtime = await createDbRuntime(config);
  try {
    if (!(await getAccount(runtime, flags.account))) return fail(`account "${flags.account}" not found`);
    switch (sub) {
      case 'create': {
        const key = await issueApiKey(runtime, flags.account, flags.name ?? 'cli');
        if (flags.json) console.log(JSON.stringify({ keyId: key.id, apiKey: key.secret }));
        else console.log(`Created key ${key.id}.\nAPI key (shown once, keep it safe):\n  ${key.secret}`);
        return 0;
      }
      case 'list': {
        const keys = await listApiKeys(runtime, flags.account);
        if (flags.json) console.log(JSON.stringify(keys));
        else
          for (const k of keys)
            console.log(`${k.id}\t${k.prefix}…\t${k.revokedAt ? 'revoked' : 'active'}\t${k.createdAt}\t${k.name}`);
        return 0;
      }
      case 'revoke': {
        if (!flags.key) return usageError('keys revoke needs --key KEY_ID', 'keys');
        await revokeApiKey(runtime, flags.account, flags.key);
        console.log(`Key ${flags.key} revoked.`);
        return 0;
      }
      default:
        return usageError('keys needs create, list or revoke', 'keys');
    }
  } catch (err) {
    if (err instanceof AppError) return fail(err.message);
    throw err;
  } finally {
    await runtime.close();
  }
}
