import type { Deps } from '../../deps.js';
import { AccountInputError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { isPlanName, PLAN_NAMES, type PlanName } from '../../plans.js';
import { findAccount, insertAccount, listAccountRows, setAccountPlan } from './account-records.js';
import { issueApiKey } from './api-keys.js';

export interface Account {
  id: string;
  name: string;
  plan: PlanName;
  createdAt: string;
}

type AccountDeps = Pick<Deps, 'db' | 'clock'>;

/** Operator action (CLI): a new account with its first API key, returned once in clear. */
export async function createAccount(
  deps: AccountDeps,
  input: { name: string; plan: string },
): Promise<{ account: Account; apiKey: string; keyId: string }> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new AccountInputError('account name must be 1-200 characters');
  if (!isPlanName(input.plan))
    throw new AccountInputError(`unknown plan "${input.plan}" (plans: ${PLAN_NAMES.join(', ')})`);
  const account: Account = { id: newId('acc'), name, plan: input.plan, createdAt: deps.clock.now().toISOString() };
  return deps.db.transaction().execute(async (trx) => {
    await insertAccount(trx, { id: account.id, name: account.name, plan: account.plan, created_at: account.createdAt });
    const key = await issueApiKey({ db: trx, clock: deps.clock }, account.id, 'default');
    return { account, apiKey: key.secret, keyId: key.id };
  });
}

export async function getAccount(deps: Pick<Deps, 'db'>, accountId: string): Promise<Account | undefined> {
  const row = await findAccount(deps.db, accountId);
  if (!row) return undefined;
  return { id: row.id, name: row.name, plan: row.plan as PlanName, createdAt: row.created_at };
}

export async function listAccounts(deps: Pick<Deps, 'db'>): Promise<Account[]> {
  const rows = await listAccountRows(deps.db);
  return rows.map((row) => ({ id: row.id, name: row.name, plan: row.plan as PlanName, createdAt: row.created_at }));
}

export async function setPlan(deps: Pick<Deps, 'db'>, accountId: string, plan: string): Promise<Account> {
  if (!isPlanName(plan)) throw new AccountInputError(`unknown plan "${plan}" (plans: ${PLAN_NAMES.join(', ')})`);
  if (!(await setAccountPlan(deps.db, accountId, plan)))
    throw new AccountInputError(`account "${accountId}" not found`);
  return (await getAccount(deps, accountId))!;
}
