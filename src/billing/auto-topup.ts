// Auto top-up: «пополнять на X, когда баланс ниже Y», with a monthly limit, charged to the card the user saved
// on a top-up (YooKassa autopayments: `payment_method_id`, no page for the buyer).
//
// The trigger is off the /v1 hot path: billing tells us after each settlement batch commits (the gateway's
// `charged` event) whose money moved, and a check runs for those users, one at a time per instance, the
// users of batches that commit meanwhile gathered for the next (as alerts do).
//
// Once per crossing, across instances: one statement claims the latch (`auto_topups.armed` true → false)
// for users whose money (balance plus leases, what GET /api/balance shows) is below the threshold, whose
// card is saved, who have no auto payment still pending and whose month leaves room for X, and inserts the
// auto top-up's `topups` row in the same statement. Two instances, or fifty parallel settlements, claim it
// once. The latch is re-armed by a credit that brings the money back to the threshold (the migration's
// trigger) or by the auto top-up's own success (auto-topup-outcomes.ts).
//
// The payment is the top-up row's: its id is the Idempotence-Key, its metadata names it, and its answer
// goes through topups.ts `settle` — the same path as a notification or the re-check — so the ledger row
// (kind 'topup', reference 'yookassa:<payment id>') is written once, with the balance, whichever of them
// sees the success first. It carries the 54-FZ receipt a top-up carries.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Config } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import { type Database, rowsOf } from '../db/client';
import type { Charge } from '../gateway';
import { AppError } from '../http/errors';
import { fieldLabel } from '../http/field-labels';
import type { Logger } from '../logger';
import { formatMoneyText, nanoToUnits, unitsToNano } from '../money';
import { isYookassaError, type YookassaClient } from '../payments/yookassa';
import { type AutoTopupSettingsInput, type AutoTopupView, thresholdNano } from './auto-topup-input';
import { METHOD_SECRET_NAME } from './auto-topup-outcomes';
import { autoTopups, savedCards, topups } from './tables';
import { billingMessages } from './texts';
import { topupAmountProblem, type TopupStatus } from './topups-input';
import type { TopupService, TopupsConfig } from './topups';

/** The month whose auto top-ups count against the limit: the calendar month in Moscow, as in the statement. */
const MONTH_TIME_ZONE = 'Europe/Moscow';
const ATTEMPTS_SHOWN = 10;

const monthStart = sql`(date_trunc('month', now() at time zone ${MONTH_TIME_ZONE}) at time zone ${MONTH_TIME_ZONE})`;
const idList = (ids: string[]) => sql`string_to_array(${ids.join(',')}, ',')::uuid[]`;

interface Claimed {
  id: string;
  user_id: string;
  method_id_sealed: string;
  receipt_to: string;
}

export function createAutoTopup(deps: {
  db: Database;
  box: SecretBox;
  logger: Logger;
  config: TopupsConfig & Pick<Config, 'balanceCurrency'>;
  client: YookassaClient | null;
  topups: TopupService;
  /** Lets queued mail leave without waiting for the outbox's poll. */
  wake: () => void;
}) {
  const { db, box, logger, config, client, topups: topupService } = deps;
  const currency = config.balanceCurrency;
  const limits = { minNano: config.topupMinNano, maxNano: config.topupMaxNano, currency };
  const queued = new Set<string>();
  let running: Promise<void> | null = null;
  /** After shutdown: billing's last batches (written after this feature stops) start no payment. */
  let stopped = false;

  async function monthSpentNano(userId: string): Promise<bigint> {
    const [row] = rowsOf<{ n: string }>(
      await db.execute(sql`
        select coalesce(sum(amount_nano), 0)::text as n from topups
        where user_id = ${userId} and auto and status <> 'canceled' and created_at >= ${monthStart}`),
    );
    return BigInt(row?.n ?? '0');
  }

  async function view(userId: string): Promise<AutoTopupView> {
    const [settings] = await db.select().from(autoTopups).where(eq(autoTopups.userId, userId));
    const [card] = await db.select().from(savedCards).where(eq(savedCards.userId, userId));
    const attempts = await db
      .select()
      .from(topups)
      .where(and(eq(topups.userId, userId), eq(topups.auto, true)))
      .orderBy(desc(topups.createdAt), desc(topups.id))
      .limit(ATTEMPTS_SHOWN);
    return {
      available: client !== null,
      enabled: settings?.enabled ?? false,
      amount: settings ? nanoToUnits(settings.amountNano) : null,
      threshold: settings ? nanoToUnits(settings.thresholdNano) : null,
      monthlyLimit: settings ? nanoToUnits(settings.monthlyLimitNano) : null,
      currency,
      card: card
        ? {
            title: card.title,
            cardType: card.cardType,
            last4: card.last4,
            expiryMonth: card.expiryMonth,
            expiryYear: card.expiryYear,
            savedAt: card.createdAt.toISOString(),
          }
        : null,
      consecutiveFailures: settings?.consecutiveFailures ?? 0,
      monthSpent: nanoToUnits(await monthSpentNano(userId)),
      attempts: attempts.map((a) => ({
        id: a.id,
        amount: nanoToUnits(a.amountNano),
        status: a.status as TopupStatus,
        cancellationReason: a.cancellationReason,
        createdAt: a.createdAt.toISOString(),
      })),
    };
  }

  /** The latch claimed and the auto top-ups' rows inserted, in one statement: see the file's head. */
  async function claim(userIds: string[]): Promise<Claimed[]> {
    return rowsOf<Claimed>(
      await db.execute(sql`
        with claimed as (
          update auto_topups a set armed = false, updated_at = now()
          from users u
          where a.user_id = u.id and a.user_id = any(${idList(userIds)}) and a.enabled and a.armed
            and u.balance_nano + coalesce((select sum(l.amount_nano) from balance_leases l where l.user_id = u.id), 0) < a.threshold_nano
            and exists (select 1 from saved_cards c where c.user_id = a.user_id)
            and not exists (select 1 from topups t where t.user_id = a.user_id and t.auto and t.status = 'pending')
            and a.amount_nano + (select coalesce(sum(t.amount_nano), 0) from topups t
                  where t.user_id = a.user_id and t.auto and t.status <> 'canceled' and t.created_at >= ${monthStart}) <= a.monthly_limit_nano
          returning a.user_id, a.amount_nano
        ), inserted as (
          insert into topups (user_id, amount_nano, currency, auto, actor_id)
          select c.user_id, c.amount_nano, ${currency}, true, s.saved_by from claimed c join saved_cards s on s.user_id = c.user_id
          returning id, user_id, actor_id
        )
        select i.id, i.user_id, s.method_id_sealed, coalesce(i.actor_id, i.user_id) as receipt_to
        from inserted i join saved_cards s on s.user_id = i.user_id`),
    );
  }

  /** Charges the saved card for one claimed auto top-up and settles the answer as any top-up is settled. */
  async function charge(claimed: Claimed): Promise<void> {
    const yookassa = client;
    const [row] = await db.select().from(topups).where(eq(topups.id, claimed.id));
    if (!yookassa || !row) return;
    const fields = { topupId: row.id, userId: row.userId, amount: nanoToUnits(row.amountNano) };
    let payment;
    try {
      const receipt = await topupService.receiptFor(claimed.receipt_to, row.amountNano);
      payment = await yookassa.chargeSavedMethod(
        {
          amountNano: row.amountNano,
          currency: row.currency,
          description: billingMessages.autoTopupPaymentDescription(formatMoneyText(row.amountNano, row.currency)),
          paymentMethodId: box.open(claimed.method_id_sealed, METHOD_SECRET_NAME),
          metadata: { topupId: row.id, userId: row.userId, auto: 'true' },
          ...(receipt ? { receipt } : {}),
        },
        row.id,
      );
    } catch (error) {
      // Refused, or unknown after the client's repeats: closed as not created (a failure, mailed). Should
      // YooKassa have taken it after all, its notification still credits the row.
      logger[isYookassaError(error) ? 'warn' : 'error']('auto top-up payment not created', { ...fields, error });
      await topupService.closeUncreated(row);
      deps.wake();
      return;
    }
    const outcome = await topupService.settle(payment);
    logger.info('auto top-up charged', { ...fields, paymentId: payment.id, status: payment.status, outcome });
    deps.wake();
  }

  async function drain(): Promise<void> {
    while (queued.size > 0) {
      const userIds = [...queued];
      queued.clear();
      try {
        for (const claimed of await claim(userIds)) await charge(claimed);
      } catch (error) {
        // The next charge of the same users checks again; a lost check delays a top-up, never doubles one.
        logger.error('auto top-up check failed', { error, users: userIds.length });
      }
    }
  }

  function start() {
    if (running || !client) return;
    running = drain().finally(() => {
      running = null;
      if (queued.size > 0) start();
    });
  }

  return {
    view,

    async save(userId: string, input: AutoTopupSettingsInput): Promise<AutoTopupView> {
      if (!client) throw new AppError('invalid_request_error', billingMessages.topupsDisabled);
      const problem = topupAmountProblem(input.amount, limits);
      if (problem) throw new AppError('invalid_request_error', `${fieldLabel(['amount'], 'billing')}: ${problem}`, { param: 'amount' });
      const amountNano = unitsToNano(input.amount)!;
      const values = {
        enabled: input.enabled,
        amountNano,
        thresholdNano: thresholdNano(input.threshold)!,
        monthlyLimitNano: unitsToNano(input.monthlyLimit)!,
        armed: true,
        updatedAt: new Date(),
      };
      await db.transaction(async (tx) => {
        // Under the card's row lock: a card removed meanwhile cannot leave auto top-up on without one.
        const [card] = await tx.select({ userId: savedCards.userId }).from(savedCards).where(eq(savedCards.userId, userId)).for('update');
        if (input.enabled && !card) throw new AppError('invalid_request_error', billingMessages.autoTopupNeedsCard, { param: 'enabled' });
        await tx
          .insert(autoTopups)
          .values({ userId, ...values })
          .onConflictDoUpdate({
            target: autoTopups.userId,
            // Switching it on again starts the failure count afresh.
            set: { ...values, consecutiveFailures: sql`case when ${autoTopups.enabled} then ${autoTopups.consecutiveFailures} else 0 end` },
          });
      });
      logger.info('auto top-up settings saved', { userId, enabled: input.enabled });
      // Already below the threshold: topped up now, as the user just asked — an empty balance would make no
      // request that settles, so no charge would ever start the check.
      if (input.enabled && !stopped) {
        queued.add(userId);
        setTimeout(start, 0);
      }
      return view(userId);
    },

    /** Forgets the saved card and switches auto top-up off. */
    async removeCard(userId: string): Promise<AutoTopupView> {
      await db.transaction(async (tx) => {
        await tx.delete(savedCards).where(eq(savedCards.userId, userId));
        await tx.update(autoTopups).set({ enabled: false, updatedAt: new Date() }).where(eq(autoTopups.userId, userId));
      });
      logger.info('saved card removed; auto top-up off', { userId });
      return view(userId);
    },

    /** Billing's observer: note whose money moved, and check them soon (never on the settlement's time). */
    charged(charges: readonly Charge[]) {
      if (!client || stopped) return;
      for (const c of charges) queued.add(c.userId);
      setTimeout(start, 0);
    },

    /** Checks these users now; resolves when every check queued so far has run (tests, tools). */
    async check(userIds: string[]): Promise<void> {
      for (const id of userIds) queued.add(id);
      start();
      await this.idle();
    },

    async stop(): Promise<void> {
      stopped = true;
      await this.idle();
    },

    /** Resolves once no check is running or waiting. */
    async idle(): Promise<void> {
      while (running || (client && queued.size > 0)) {
        if (!running) start();
        await running;
      }
    },
  };
}

export type AutoTopup = ReturnType<typeof createAutoTopup>;
