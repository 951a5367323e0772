// Detects the crossings alerts are about, off the /v1 hot path: billing tells us (after each settlement
// batch commits) whose balance and which limited key's spend just moved, and a check runs for those alone,
// one at a time per instance, the users and keys of batches that commit meanwhile gathered for the next.
//
// A crossing is claimed in the database, so any number of instances mail once: the low-balance alert by
// setting account_alerts.low_balance_alerted_at with a conditional UPDATE … RETURNING (it is cleared when
// a credit lifts the balance to the threshold again: the migration's trigger), the key alert by upserting
// the key's row of key_limit_alerts only when its period or limit differs. The mail and the webhook call
// are queued in the outbox in the claim's own transaction: no claim without its messages, and none twice.
//
// An organisation's account has no address of its own: its low-balance mail goes to its owners and
// accountants. A member whose monthly limit in an organisation is reached (spent to it, or a call refused
// for it) is told, with the organisation's owners and admins, once a month (member-limit.ts).
//
// An account's webhook calls share one outbox lane (one call at a time per account), and at most
// ALERT_WEBHOOK_MAX_QUEUED of them wait: queuing a newer one drops the oldest beyond that (a receiver that
// is down for a day gets the latest events when it is back, not a day's backlog), with a log line.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Config } from '../config';
import { type Database, type Executor, rowsOf } from '../db/client';
import type { Charge } from '../gateway';
import { enqueueOutbox, type NewOutboxRow } from '../jobs/outbox';
import { describeLimit, periodStart, type LimitReset } from '../keys';
import type { Logger } from '../logger';
import { formatMoneyText, nanoToUnits } from '../money';
import { checkMemberLimits, type MemberCharge } from './member-limit';
import { keyLimitMail, lowBalanceMail, mailBodies, organizationLowBalanceMail } from './texts';

export const ALERT_MAIL_KIND = 'alerts.mail';
export const ALERT_WEBHOOK_KIND = 'alerts.webhook';

/** A key is told when it has spent this share of its limit: 4/5. */
const NEAR_NUMERATOR = 4n;
const NEAR_DENOMINATOR = 5n;

export interface AlertCheckerDeps {
  db: Database;
  logger: Logger;
  config: Pick<Config, 'publicBaseUrl' | 'balanceCurrency' | 'smtp' | 'alertWebhookMaxQueued'>;
  /** Called after a claim committed messages, so they leave without waiting for the outbox's poll. */
  wake: () => void;
}

/** The outbox lane of an account's webhook calls. */
export const webhookLane = (userId: string) => `${ALERT_WEBHOOK_KIND}:${userId}`;
/** What a dropped event's row says. */
export const DROPPED_EVENT_ERROR = 'dropped: newer alert events of the account are waiting';

const toBig = (v: unknown) => BigInt(v as string | number | bigint);
const idList = (ids: string[]) => sql`string_to_array(${ids.join(',')}, ',')::uuid[]`;

export function createAlertChecker({ db, logger, config, wake }: AlertCheckerDeps) {
  const users = new Set<string>();
  const keys = new Set<string>();
  /** Members whose limit a charge counted against, by `<organisation>:<member>`; `refused` once any was a refusal. */
  const members = new Map<string, MemberCharge>();
  let running: Promise<void> | null = null;
  const currency = config.balanceCurrency;
  const topupUrl = `${config.publicBaseUrl}/app/topups`;
  const keysUrl = `${config.publicBaseUrl}/app/keys`;
  const settingsUrl = `${config.publicBaseUrl}/app/account`;

  /** The outbox rows of one event: a mail to each address (when the server sends mail) and a webhook call (when set). */
  function messages(
    emails: readonly string[],
    mail: { subject: string; text: string; html: string },
    userId: string,
    webhookUrl: string | null,
    event: Record<string, unknown>,
  ): NewOutboxRow[] {
    const rows: NewOutboxRow[] = [];
    if (config.smtp) for (const email of emails) rows.push({ kind: ALERT_MAIL_KIND, recipient: email, payload: mail });
    if (webhookUrl) {
      // The body is fixed now, so every retry sends the same bytes (its id lets the receiver drop repeats).
      const body = JSON.stringify({ id: `evt_${randomUUID().replaceAll('-', '')}`, ...event, created: Math.floor(Date.now() / 1000) });
      rows.push({ kind: ALERT_WEBHOOK_KIND, recipient: webhookUrl, lane: webhookLane(userId), payload: { userId, body } });
    }
    return rows;
  }

  /**
   * Queues the rows, then drops the account's oldest waiting webhook calls beyond the cap (one in delivery
   * now is left to finish), in the same transaction.
   */
  async function enqueue(tx: Executor, rows: NewOutboxRow[]): Promise<void> {
    await enqueueOutbox(tx, rows);
    const lanes = [...new Set(rows.flatMap((r) => (r.lane && r.kind === ALERT_WEBHOOK_KIND ? [r.lane] : [])))];
    if (lanes.length === 0) return;
    const dropped = rowsOf<{ user_id: string; n: unknown }>(
      await tx.execute(sql`
        with dropped as (
          update outbox set status = 'failed', last_error = ${DROPPED_EVENT_ERROR}, locked_until = null, locked_by = null
           where id in (
             select id from (
               select id, locked_until, row_number() over (partition by lane order by id desc) as place
                 from outbox
                where lane = any(array(select jsonb_array_elements_text(${JSON.stringify(lanes)}::jsonb))) and status = 'pending'
             ) waiting
             where place > ${config.alertWebhookMaxQueued} and (locked_until is null or locked_until < now()))
          returning payload->>'userId' as user_id)
        select user_id, count(*)::int as n from dropped group by user_id`),
    );
    for (const d of dropped) {
      logger.warn('alert webhook events dropped: too many waiting for the account', { userId: d.user_id, dropped: Number(d.n), max: config.alertWebhookMaxQueued });
    }
  }

  async function checkBalances(userIds: string[]): Promise<number> {
    if (userIds.length === 0) return 0;
    return db.transaction(async (tx) => {
      // Money is the balance plus what leases hold (what GET /api/balance shows); users whose alert is
      // armed and whose money is under the threshold are claimed, all in this one statement.
      // An organisation's mail goes to its owners and accountants (space-separated: no address holds one).
      const claimed = rowsOf<{
        user_id: string;
        email: string;
        kind: string;
        organization: string | null;
        recipients: string | null;
        money: unknown;
        threshold: unknown;
        webhook_url: string | null;
      }>(
        await tx.execute(sql`
          update account_alerts a set low_balance_alerted_at = now()
          from (
            select u.id, u.email, u.kind,
              u.balance_nano + coalesce((select sum(l.amount_nano) from balance_leases l where l.user_id = u.id), 0) as money
            from users u where u.id = any(${idList(userIds)})
          ) m
          where a.user_id = m.id and a.low_balance_threshold_nano is not null and a.low_balance_alerted_at is null
            and m.money < a.low_balance_threshold_nano
          returning a.user_id, m.email, m.kind, m.money::text as money, a.low_balance_threshold_nano::text as threshold, a.webhook_url,
            (select o.name from organizations o where o.id = m.id) as organization,
            (select string_agg(p.email, ' ' order by p.email) from organization_members om join users p on p.id = om.user_id
              where om.organization_id = m.id and om.role in ('owner', 'accountant')) as recipients`),
      );
      const rows: NewOutboxRow[] = [];
      for (const c of claimed) {
        const money = toBig(c.money);
        const threshold = toBig(c.threshold);
        const balanceText = formatMoneyText(money, currency);
        const thresholdText = formatMoneyText(threshold, currency);
        const isOrganization = c.kind === 'organization';
        const mail = isOrganization
          ? {
              subject: organizationLowBalanceMail.subject(c.organization ?? '', thresholdText),
              ...mailBodies(organizationLowBalanceMail.lines(c.organization ?? '', balanceText, thresholdText, topupUrl, settingsUrl), [topupUrl, settingsUrl]),
            }
          : {
              subject: lowBalanceMail.subject(thresholdText),
              ...mailBodies(lowBalanceMail.lines(balanceText, thresholdText, topupUrl, settingsUrl), [topupUrl, settingsUrl]),
            };
        // An organisation's own address is never mailed.
        const emails = isOrganization ? (c.recipients ?? '').split(' ').filter(Boolean) : [c.email];
        rows.push(
          ...messages(emails, mail, c.user_id, c.webhook_url, {
            type: 'balance.low',
            balance: nanoToUnits(money),
            threshold: nanoToUnits(threshold),
            currency,
            topupUrl,
          }),
        );
      }
      await enqueue(tx, rows);
      return claimed.length;
    });
  }

  interface KeyRow {
    id: string;
    user_id: string;
    email: string;
    kind: string;
    name: string;
    key_prefix: string;
    limit: unknown;
    limit_reset: string;
    budget: unknown;
    budget_period: Date | string | null;
    claimed: unknown;
    webhook_url: string | null;
    alerted_period: Date | string | null;
    alerted_limit: unknown;
  }

  /** A key alert claimed in `tx`: true when this call took it (its period and limit not alerted before). */
  async function claimKey(tx: Executor, keyId: string, period: Date, limit: bigint): Promise<boolean> {
    const taken = rowsOf(
      await tx.execute(sql`
        insert into key_limit_alerts (key_id, period_start, limit_nano)
        values (${keyId}, ${period.toISOString()}::timestamptz, ${limit.toString()}::bigint)
        on conflict (key_id) do update set period_start = excluded.period_start, limit_nano = excluded.limit_nano, alerted_at = now()
        where (key_limit_alerts.period_start, key_limit_alerts.limit_nano) is distinct from (excluded.period_start, excluded.limit_nano)
        returning key_id`),
    );
    return taken.length > 0;
  }

  async function checkKeys(keyIds: string[]): Promise<number> {
    if (keyIds.length === 0) return 0;
    const now = Date.now();
    // What a key spent in its period, without reading usage rows: limit = budget + Σ claims + spent
    // (api_keys.budget_nano's invariant); a budget of an earlier period means nothing spent in this one.
    const rows = rowsOf<KeyRow>(
      await db.execute(sql`
        select k.id, k.user_id, u.email, u.kind, k.name, k.key_prefix, k.spend_limit_nano::text as limit, k.limit_reset,
          k.budget_nano::text as budget, k.budget_period_start as budget_period,
          (select coalesce(sum(c.amount_nano), 0) from key_leases c
            where c.key_id = k.id and c.period_start = k.budget_period_start)::text as claimed,
          a.webhook_url, ka.period_start as alerted_period, ka.limit_nano::text as alerted_limit
        from api_keys k
        join users u on u.id = k.user_id
        left join account_alerts a on a.user_id = k.user_id
        left join key_limit_alerts ka on ka.key_id = k.id
        where k.id = any(${idList(keyIds)}) and k.spend_limit_nano is not null and k.spend_limit_nano > 0
          and k.revoked_at is null and coalesce(a.key_limit_alerts, true)`),
    );
    let sent = 0;
    for (const key of rows) {
      const limit = toBig(key.limit);
      const period = periodStart(key.limit_reset as LimitReset, now);
      if (key.budget_period === null || new Date(key.budget_period).getTime() !== period.getTime()) continue;
      const spent = limit - toBig(key.budget) - toBig(key.claimed);
      if (spent * NEAR_DENOMINATOR < limit * NEAR_NUMERATOR) continue;
      const alertedBefore = key.alerted_period !== null && new Date(key.alerted_period).getTime() === period.getTime() && toBig(key.alerted_limit) === limit;
      if (alertedBefore) continue;
      const limitText = describeLimit(limit, key.limit_reset as LimitReset, currency);
      const spentText = formatMoneyText(spent, currency);
      const claimed = await db.transaction(async (tx) => {
        if (!(await claimKey(tx, key.id, period, limit))) return false;
        const mail = {
          subject: keyLimitMail.subject(key.name),
          ...mailBodies(keyLimitMail.lines(key.name, key.key_prefix, spentText, limitText, keysUrl, settingsUrl), [keysUrl, settingsUrl]),
        };
        await enqueue(
          tx,
          messages(key.kind === 'organization' ? [] : [key.email], mail, key.user_id, key.webhook_url, {
            type: 'key.limit_near',
            keyId: key.id,
            keyName: key.name,
            keyPrefix: key.key_prefix,
            spent: nanoToUnits(spent),
            limit: nanoToUnits(limit),
            limitReset: key.limit_reset,
            periodStart: period.toISOString(),
            currency,
          }),
        );
        return true;
      });
      if (claimed) sent += 1;
    }
    return sent;
  }

  async function drainQueued(): Promise<void> {
    while (users.size > 0 || keys.size > 0 || members.size > 0) {
      const userIds = [...users];
      const keyIds = [...keys];
      const memberCharges = [...members.values()];
      users.clear();
      keys.clear();
      members.clear();
      try {
        const claimed =
          (await checkBalances(userIds)) +
          (await checkKeys(keyIds)) +
          (await checkMemberLimits({ db, config, enqueue: async (tx, rows) => void (await enqueueOutbox(tx, rows)), mailKind: ALERT_MAIL_KIND }, memberCharges));
        if (claimed > 0) wake();
      } catch (error) {
        // Checked again with the next charge of the same users; a lost check delays an alert, never doubles it.
        logger.error('alert check failed', { error, users: userIds.length, keys: keyIds.length });
      }
    }
  }

  function start() {
    if (running) return;
    running = drainQueued().finally(() => {
      running = null;
      if (users.size > 0 || keys.size > 0 || members.size > 0) start();
    });
  }

  return {
    /** Billing's observer: note whose balance and keys moved, and check them soon (never on the caller's time). */
    charged(charges: readonly Charge[]) {
      for (const c of charges) {
        if (!c.member?.refused) users.add(c.userId);
        if (c.keyId) keys.add(c.keyId);
        if (c.member) {
          const slot = `${c.member.organizationId}:${c.member.memberId}`;
          const seen = members.get(slot);
          members.set(slot, { organizationId: c.member.organizationId, memberId: c.member.memberId, refused: (seen?.refused ?? false) || c.member.refused });
        }
      }
      // Not in this call: the settlement writer must go on at once.
      setTimeout(start, 0);
    },

    /** Checks these users and keys now; resolves when every check queued so far has run (tests, tools). */
    async check(userIds: string[], keyIds: string[] = []): Promise<void> {
      for (const id of userIds) users.add(id);
      for (const id of keyIds) keys.add(id);
      start();
      await this.idle();
    },

    /** Resolves once no check is running or waiting. */
    async idle(): Promise<void> {
      while (running || users.size > 0 || keys.size > 0 || members.size > 0) {
        if (!running) start();
        await running;
      }
    },
  };
}

export type AlertChecker = ReturnType<typeof createAlertChecker>;
