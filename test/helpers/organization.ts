// An organisation made straight in the database, as the organisations feature makes one (an account row of
// kind 'organization' with an unmailable address, the organizations row, members with roles and limits),
// and API keys in it made with the real key generation: for tests of what spends from an organisation,
// before its API exists. Money goes in through setBalanceNano (a ledger row with it).
import { randomUUID } from 'node:crypto';
import { generateApiKey } from '../../src/keys/api-keys';
import { periodStart } from '../../src/keys/limits';
import type { TestApp } from './app';
import { setBalanceNano } from './gateway';

export type MemberRole = 'owner' | 'admin' | 'developer' | 'accountant';

export interface OrgMember {
  userId: string;
  role: MemberRole;
  /** Monthly limit in nano-units; absent: none. */
  spendLimitNano?: bigint | null;
}

/** Creates the organisation with these members and balance; returns its id (its account's users.id). */
export async function createOrganization(app: TestApp, options: { name?: string; members: OrgMember[]; balanceNano?: bigint }): Promise<string> {
  const id = randomUUID();
  await app.sql(`insert into users (id, email, password_hash, kind) values ($1, $2, '!', 'organization')`, [id, `${id}@organizations.invalid`]);
  await app.sql('insert into organizations (id, name, created_by) values ($1, $2, $3)', [id, options.name ?? 'ООО «Ромашка»', options.members[0]?.userId ?? null]);
  for (const member of options.members) await addMember(app, id, member);
  if (options.balanceNano !== undefined) await setBalanceNano(app, id, options.balanceNano);
  return id;
}

/** Adds a member as joining does: a limit comes with its whole budget for the month. */
export async function addMember(app: TestApp, organizationId: string, member: OrgMember): Promise<void> {
  const limit = member.spendLimitNano ?? null;
  await app.sql(
    `insert into organization_members (organization_id, user_id, role, spend_limit_nano, budget_nano, budget_period_start)
     values ($1, $2, $3, $4::bigint, $5::bigint, $6::timestamptz)`,
    [
      organizationId,
      member.userId,
      member.role,
      limit === null ? null : limit.toString(),
      (limit ?? 0n).toString(),
      limit === null ? null : periodStart('month').toISOString(),
    ],
  );
}

/** A key of the organisation created by `memberId` (the full key, shown once, and its id). */
export async function organizationKey(app: TestApp, organizationId: string, memberId: string, name = 'org key'): Promise<{ key: string; id: string }> {
  const generated = generateApiKey();
  const [row] = await app.sql<{ id: string }>(`insert into api_keys (user_id, created_by, name, key_prefix, key_hash) values ($1, $2, $3, $4, $5) returning id`, [
    organizationId,
    memberId,
    name,
    generated.keyPrefix,
    generated.keyHash,
  ]);
  return { key: generated.key, id: row!.id };
}
