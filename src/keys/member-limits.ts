// An organisation member's monthly spend limit (organization_members.spend_limit_nano): the keys a member
// created in the organisation (api_keys.user_id = the organisation, created_by = the member) spend within it
// per calendar month (UTC), as a key spends within its own limit. The gateway enforces it with claims on the
// member's budget (gateway/billing); this file sets the limit and reads what members spent. Raw SQL on
// organization_members: the keys feature sits below organizations/ and does not import its tables.
import { sql } from 'drizzle-orm';
import { rowsOf, type Executor } from '../db/client';
import { periodStart } from './limits';

/** What a member's limit was and is. */
interface MemberLimitChange {
  before: bigint | null;
  after: bigint | null;
}

const toBig = (v: unknown) => BigInt(v as string);

/**
 * What each member of an organisation spent this calendar month (UTC) with the keys they created in it, by
 * the member's user id (members who spent nothing are absent). Read from the daily usage sums: a month
 * starts at a UTC midnight, so its days are whole.
 */
export async function memberSpentThisMonth(executor: Executor, organizationId: string, at: number = Date.now()): Promise<Map<string, bigint>> {
  const since = periodStart('month', at);
  const rows = rowsOf<{ member: string; spent: unknown }>(
    await executor.execute(sql`
      select k.created_by as member, sum(u.cost_nano)::text as spent
      from usage_rollups_daily u
      join api_keys k on k.id = u.api_key_id
      where u.user_id = ${organizationId} and u.bucket >= ${since.toISOString()}::timestamptz
        and u.api_key_id is not null and k.user_id = ${organizationId} and k.created_by is not null
      group by k.created_by`),
  );
  return new Map(rows.map((r) => [r.member, toBig(r.spent)]));
}

/**
 * Sets a member's limit in `tx` (null removes it): the unclaimed budget of this month becomes limit − spent
 * − what instances have claimed, never below zero, and the month's «limit reached» notice may go again.
 * Null when there is no such member; the change otherwise (unchanged limits change nothing).
 */
export async function writeMemberLimit(tx: Executor, organizationId: string, userId: string, limitNano: bigint | null): Promise<MemberLimitChange | null> {
  const [row] = rowsOf<{ limit: unknown }>(
    await tx.execute(sql`
      select spend_limit_nano::text as limit from organization_members
      where organization_id = ${organizationId} and user_id = ${userId} for no key update`),
  );
  if (!row) return null;
  const before = row.limit === null ? null : toBig(row.limit);
  if (before === limitNano) return { before, after: limitNano };
  if (limitNano === null) {
    await tx.execute(sql`
      update organization_members set spend_limit_nano = null, budget_nano = 0, budget_period_start = null,
        limit_changed_at = now(), limit_notified_period = null
      where organization_id = ${organizationId} and user_id = ${userId}`);
    return { before, after: null };
  }
  const since = periodStart('month');
  const spent = (await memberSpentThisMonth(tx, organizationId)).get(userId) ?? 0n;
  const [claimed] = rowsOf<{ total: unknown }>(
    await tx.execute(sql`
      select coalesce(sum(amount_nano), 0)::text as total from member_leases
      where organization_id = ${organizationId} and user_id = ${userId} and period_start = ${since.toISOString()}::timestamptz`),
  );
  const left = limitNano - spent - toBig(claimed?.total ?? '0');
  await tx.execute(sql`
    update organization_members set spend_limit_nano = ${limitNano.toString()}::bigint,
      budget_nano = ${(left > 0n ? left : 0n).toString()}::bigint, budget_period_start = ${since.toISOString()}::timestamptz,
      limit_changed_at = now(), limit_notified_period = null
    where organization_id = ${organizationId} and user_id = ${userId}`);
  return { before, after: limitNano };
}

/**
 * Tells every instance (at commit) that the member's keys in the organisation changed, on the channel a
 * key's own change uses: their cached records and the claims on the member's old limit are dropped.
 * Returns the key ids, for the calling instance to drop at once.
 */
export async function notifyMemberKeys(tx: Executor, channel: string, organizationId: string, userId: string): Promise<string[]> {
  const rows = rowsOf<{ id: string }>(
    await tx.execute(sql`
      select id, pg_notify(${channel}, id::text) from api_keys
      where user_id = ${organizationId} and created_by = ${userId} and revoked_at is null`),
  );
  return rows.map((r) => r.id);
}
