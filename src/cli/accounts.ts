import type { Config } from '../config.js';
import { usageError } from './help.js';
import { fail } from './fail.js';
import { createDbRuntime } from '../db-runtime.js';
import { AccountInputError } from '../errors.js';
import { createAccount, listAccounts, setPlan } from '../modules/accounts/accounts.js';

interface Flags {
  name?: string;
  plan?: string;
  account?: string;
  json?: boolean;
}

export async function accountsCommand(config: Config, sub: string | undefined, flags: Flags): Promise<number> {
  const runtime = await createDbRuntime(config);
  try {
    switch (sub) {
      case 'create': {
        if (!flags.name || !flags.plan) return usageError('accounts create needs --name and --plan', 'accounts');
        const { account, apiKey } = await createAccount(runtime, { name: flags.name, plan: flags.plan });
        if (flags.json) console.log(JSON.stringify({ accountId: account.id, apiKey }));
        else
          console.log(
            `Created account ${account.id} (${account.name}, ${account.plan}).\nAPI key (shown once, keep it safe):\n  ${apiKey}`,
          );
        return 0;
      }
      case 'set-plan': {
        if (!flags.account || !flags.plan)
          return usageError('accounts set-plan needs --account and --plan', 'accounts');
        const account = await setPlan(runtime, flags.account, flags.plan);
        console.log(flags.json ? JSON.stringify(account) : `Account ${account.id} is now on the ${account.plan} plan.`);
        return 0;
      }
      case 'list': {
        const accounts = await listAccounts(runtime);
        if (flags.json) console.log(JSON.stringify(accounts));
        else for (const a of accounts) console.log(`${a.id}\t${a.plan}\t${a.createdAt}\t${a.name}`);
        return 0;
      }
      default:
        return usageError('accounts needs create, set-plan or list', 'accounts');
    }
  } catch (err) {
    if (err instanceof AccountInputError) return fail(err.message);
    throw err;
  } finally {
    await runtime.close();
  }
}
