// The referrer's view: its invitation link (the code made on first sight), the terms in force, the accounts
// it invited — their e-mails masked — and what each earned it, from the `referral` ledger rows.
import { eq, sql } from 'drizzle-orm';
import type { Config } from '../config';
import { rowsOf, type Database } from '../db/client';
import { cursorTime, decodeCursor, encodeCursor } from '../db/cursor';
import { nanoToUnits } from '../money';
import { newReferralCode } from './codes';
import type { ReferralStatus, ReferralsView } from './input';
import { selfReferral } from './self-referral';
import { referralCodes } from './tables';

export type ReferralServiceConfig = Pick<Config, 'referral' | 'publicBaseUrl' | 'balanceCurrency'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** «iv***@example.com»: enough for the referrer to recognise whom it invited, not to read the address. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const shown = [...local].slice(0, local.length <= 2 ? 1 : 2).join('');
  return `${shown}***${email.slice(at)}`;
}

interface ReferredRow {
  referred_id: string;
  email: string;
  registered_at: string;
  pays_until: string;
  active: boolean;
  earned: string;
  payouts: number;
  cursor_at: string;
}

export function createReferralService(db: Database, config: ReferralServiceConfig) {
  async function codeOf(userId: string): Promise<string | null> {
    const [row] = await db.select({ code: referralCodes.code }).from(referralCodes).where(eq(referralCodes.userId, userId));
    return row?.code ?? null;
  }

  async function overview(userId: string, query: { limit: number; cursor?: string | undefined }): Promise<ReferralsView> {
    const code = await codeOf(userId);
    const cursor = query.cursor ? decodeCursor(query.cursor, UUID) : null;
    const { months, sameDomain } = config.referral;
    const [totals] = rowsOf<{ referrer_email: string; referred: number; earned: string }>(
      await db.execute(sql`
          select u.email as referrer_email,
            (select count(*)::int from referrals r where r.referrer_id = u.id) as referred,
            (select coalesce(sum(l.amount_nano), 0)::text from ledger_entries l where l.user_id = u.id and l.kind = 'referral') as earned
          from users u where u.id = ${userId}`),
    );
    const rows = rowsOf<ReferredRow>(
      await db.execute(sql`
          select r.referred_id, u.email,
            to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as registered_at,
            to_char((u.created_at + make_interval(months => ${months}::int)) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as pays_until,
            now() < u.created_at + make_interval(months => ${months}::int) as active,
            coalesce((select sum(l.amount_nano) from referral_payouts p join ledger_entries l on l.id = p.ledger_entry_id
              where p.referrer_id = r.referrer_id and p.referred_id = r.referred_id), 0)::text as earned,
            (select count(*)::int from referral_payouts p where p.referrer_id = r.referrer_id and p.referred_id = r.referred_id) as payouts,
            ${cursorTime(sql`r.created_at`)} as cursor_at
          from referrals r join users u on u.id = r.referred_id
          where r.referrer_id = ${userId}
            ${cursor ? sql`and (r.created_at < ${cursor.createdAt}::timestamptz or (r.created_at = ${cursor.createdAt}::timestamptz and r.referred_id < ${cursor.id}))` : sql``}
          order by r.created_at desc, r.referred_id desc
          limit ${query.limit + 1}`),
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const status = (row: ReferredRow): ReferralStatus =>
      selfReferral(row.email, totals?.referrer_email ?? '', sameDomain) !== null ? 'refused' : row.active ? 'active' : 'expired';
    return {
      enabled: config.referral.shareMillionths > 0n,
      percent: config.referral.percent,
      months,
      code,
      link: code === null ? null : `${config.publicBaseUrl}/app/register?ref=${code}`,
      referredCount: totals?.referred ?? 0,
      totalEarned: nanoToUnits(BigInt(totals?.earned ?? '0')),
      currency: config.balanceCurrency,
      referred: page.map((row) => ({
        email: maskEmail(row.email),
        registeredAt: row.registered_at,
        paysUntil: row.pays_until,
        status: status(row),
        earned: nanoToUnits(BigInt(row.earned)),
        payouts: row.payouts,
      })),
      nextCursor: rows.length > query.limit && last ? encodeCursor(last.cursor_at, last.referred_id) : null,
    };
  }

  return {
    overview,

    /**
     * The account's code, made when its owner first asks for a link (a POST: reading the page changes
     * nothing); asked again, the same code. A rare clash of two random codes is drawn again.
     */
    async createLink(userId: string): Promise<ReferralsView> {
      for (let attempt = 0; attempt < 5 && (await codeOf(userId)) === null; attempt++) {
        await db.insert(referralCodes).values({ userId, code: newReferralCode() }).onConflictDoNothing();
      }
      if ((await codeOf(userId)) === null) throw new Error('could not draw a free referral code');
      return overview(userId, { limit: 50 });
    },
  };
}

export type ReferralService = ReturnType<typeof createReferralService>;
