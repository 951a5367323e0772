// The «member limit reached» notice: when an organisation member's monthly spend limit is used up — their
// keys' spending reached it, or a call was refused for it — the member and the organisation's owners and
// admins get one e-mail a month. The claim is organization_members.limit_notified_period, set by a
// conditional UPDATE … RETURNING in the transaction that queues the mails, so any number of instances mail
// once; a new limit clears it (keys/member-limits.ts), and the new limit's reaching is news again.
import { sql } from 'drizzle-orm';
import type { Config } from '../config';
import { type Database, type Executor, rowsOf } from '../db/client';
import type { NewOutboxRow } from '../jobs/outbox';
import { describeLimit, periodStart } from '../keys';
import { formatMoneyText } from '../money';
import { mailBodies, memberLimitMail } from './texts';

/** A member whose limit a charge counted against (`refused`: a call was refused for it). */
export interface MemberCharge {
  organizationId: string;
  memberId: string;
  refused: boolean;
}

interface MemberRow {
  organization_id: string;
  user_id: string;
  email: string;
  organization: string;
  limit: unknown;
  budget: unknown;
  budget_period: Date | string | null;
  claimed: unknown;
  notified: Date | string | null;
}

interface Deps {
  db: Database;
  config: Pick<Config, 'publicBaseUrl' | 'balanceCurrency' | 'smtp'>;
  enqueue: (tx: Executor, rows: NewOutboxRow[]) => Promise<void>;
  /** The outbox kind of alert mails (checker.ts). */
  mailKind: string;
}

const toBig = (v: unknown) => BigInt(v as string);
const sameTime = (a: Date | string | null, b: Date) => a !== null && new Date(a).getTime() === b.getTime();

/** Checks these members' limits and queues the month's notice where one is due; resolves how many were claimed. */
export async function checkMemberLimits({ db, config, enqueue, mailKind }: Deps, charges: MemberCharge[]): Promise<number> {
  if (charges.length === 0) return 0;
  const period = periodStart('month');
  const values = sql.join(
    charges.map((c) => sql`(${c.organizationId}::uuid, ${c.memberId}::uuid)`),
    sql`, `,
  );
  // What a member spent this month, without reading usage rows: limit = budget + Σ claims + spent, as for keys.
  const rows = rowsOf<MemberRow>(
    await db.execute(sql`
      select m.organization_id, m.user_id, u.email, o.name as organization, m.spend_limit_nano::text as limit,
        m.budget_nano::text as budget, m.budget_period_start as budget_period, m.limit_notified_period as notified,
        (select coalesce(sum(c.amount_nano), 0) from member_leases c
          where c.organization_id = m.organization_id and c.user_id = m.user_id and c.period_start = m.budget_period_start)::text as claimed
      from (values ${values}) as v(organization_id, user_id)
      join organization_members m on m.organization_id = v.organization_id and m.user_id = v.user_id
      join users u on u.id = m.user_id
      join organizations o on o.id = m.organization_id
      where m.spend_limit_nano is not null`),
  );
  const refusedOf = new Set(charges.filter((c) => c.refused).map((c) => `${c.organizationId}:${c.memberId}`));
  const currency = config.balanceCurrency;
  const membersUrl = `${config.publicBaseUrl}/app/organization`;
  let sent = 0;
  for (const member of rows) {
    if (sameTime(member.notified, period)) continue;
    const limit = toBig(member.limit);
    const spent = sameTime(member.budget_period, period) ? limit - toBig(member.budget) - toBig(member.claimed) : 0n;
    if (spent < limit && !refusedOf.has(`${member.organization_id}:${member.user_id}`)) continue;
    const claimed = await db.transaction(async (tx) => {
      const taken = rowsOf(
        await tx.execute(sql`
          update organization_members set limit_notified_period = ${period.toISOString()}::timestamptz
          where organization_id = ${member.organization_id} and user_id = ${member.user_id}
            and limit_notified_period is distinct from ${period.toISOString()}::timestamptz
          returning user_id`),
      );
      if (taken.length === 0) return false;
      if (!config.smtp) return true;
      const admins = rowsOf<{ email: string }>(
        await tx.execute(sql`
          select u.email from organization_members m join users u on u.id = m.user_id
          where m.organization_id = ${member.organization_id} and m.role in ('owner', 'admin') and m.user_id <> ${member.user_id}
          order by u.email`),
      );
      const limitText = describeLimit(limit, 'month', currency);
      const spentText = formatMoneyText(spent, currency);
      const toMember = {
        subject: memberLimitMail.subject(member.organization),
        ...mailBodies(memberLimitMail.toMember(member.organization, spentText, limitText), []),
      };
      const toAdmins = {
        subject: memberLimitMail.subject(member.organization),
        ...mailBodies(memberLimitMail.toAdmins(member.organization, member.email, spentText, limitText, membersUrl), [membersUrl]),
      };
      await enqueue(tx, [
        { kind: mailKind, recipient: member.email, payload: toMember },
        ...admins.map((a) => ({ kind: mailKind, recipient: a.email, payload: toAdmins })),
      ]);
      return true;
    });
    if (claimed) sent += 1;
  }
  return sent;
}
