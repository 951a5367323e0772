// Balance top-ups through YooKassa: a user asks for an amount, pays on YooKassa's page, and the balance
// grows once YooKassa — never the notification's body, never the buyer's return — says the payment
// succeeded.
//
// Idempotency. The topups row is written before YooKassa is called and its id is the Idempotence-Key, so
// a repeat of a call whose answer was lost returns the same payment. The credit is keyed by the payment:
// the ledger row (kind 'topup', reference 'yookassa:<payment id>') is unique, so a redelivered
// notification, the periodic re-check and the buyer's return page may all see the same success and the
// balance still grows once.
//
// Failure. When the payment cannot be created (YooKassa refused, or its answer stayed unknown after the
// client's repeats) the row is marked canceled with reason 'payment_not_created' and the caller gets 502:
// no buyer ever saw a payment page for it, so no money can arrive for it, and trying again is a new
// top-up. Should a success for such a row arrive all the same, it is credited: money that came in is
// never refused.
import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Config } from '../config';
import type { Database, Executor } from '../db/client';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import { users } from '../accounts/tables';
import { creditTopupOnce } from './credit';
import { topups } from './tables';
import { AppError } from '../http/errors';
import { billingMessages } from './texts';
import { accountsMessages } from '../accounts';
import type { Logger } from '../logger';
import { formatMoneyText, nanoToDecimalString, nanoToUnits } from '../money';
import { amountValueToNano, isYookassaError, YookassaApiError, type YookassaClient, type YookassaPayment, type YookassaReceipt } from '../payments/yookassa';
import { topupAmountNano, topupAmountProblem, type BillingConfigView, type CreateTopupInput, type TopupStatus, type TopupView } from './topups-input';
import { fieldLabel } from '../http/field-labels';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The buyer's return page may ask again at most this often; notifications and the re-check are not throttled. */
const RETURN_REFRESH_MS = 3000;
/** Pending rows without a payment older than this lost their creation call (a crash between the two writes). */
const ORPHAN_AFTER_SECONDS = 600;
/** Pending top-ups older than a day are asked about at most hourly: the buyer has most likely walked away. */
const STALE_AFTER_SECONDS = 86_400;
const STALE_RECHECK_SECONDS = 3600;
const RECHECK_BATCH = 50;

export type TopupsConfig = Pick<
  Config,
  | 'balanceCurrency'
  | 'publicBaseUrl'
  | 'topupMinNano'
  | 'topupMaxNano'
  | 'topupRecheckSeconds'
  | 'topupMaxPending'
  | 'yookassaReceiptVatCode'
  | 'registrationBonusNano'
  | 'referral'
>;

/** What a re-read payment did to our books. */
export type SettleOutcome = 'credited' | 'already_credited' | 'canceled' | 'still_pending' | 'already_final' | 'unknown_payment' | 'mismatch';

export interface RecheckResult {
  checked: number;
  credited: number;
  canceled: number;
  failed: number;
}

export type TopupRow = typeof topups.$inferSelect;

/**
 * What saved cards and auto top-up (auto-topup-outcomes.ts) do when a top-up ends, in the transaction that
 * ends it: each runs once per top-up, as the transition it rides on happens once.
 */
export interface TopupHooks {
  /** The payment was credited: keep the card it saved, count an auto payment's success. */
  credited(tx: Executor, row: TopupRow, payment: YookassaPayment): Promise<void>;
  /** Pending → canceled; `payment` is null when none was created. */
  canceled(tx: Executor, row: TopupRow, reason: string, payment: YookassaPayment | null): Promise<void>;
}

function viewOf(row: TopupRow): TopupView {
  return {
    id: row.id,
    amount: nanoToUnits(row.amountNano),
    currency: row.currency,
    status: row.status as TopupStatus,
    confirmationUrl: row.confirmationUrl,
    cancellationReason: row.cancellationReason,
    createdAt: row.createdAt.toISOString(),
    creditedAt: row.creditedAt?.toISOString() ?? null,
  };
}

/** A failed creation as the caller sees it: 502 either way, with a text that says whether to just wait. */
function creationFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (!isYookassaError(error)) return new AppError('internal_error', undefined, { cause: error });
  return new AppError('upstream_error', error.resultUnknown ? billingMessages.topupPaymentUnavailable : billingMessages.topupPaymentRejected, {
    cause: error,
  });
}

export function createTopupService(deps: { db: Database; config: TopupsConfig; logger: Logger; client: YookassaClient | null; hooks?: TopupHooks }) {
  const { db, config, logger, client, hooks } = deps;
  const limits = { minNano: config.topupMinNano, maxNano: config.topupMaxNano, currency: config.balanceCurrency };

  function requireClient(): YookassaClient {
    if (!client) throw new AppError('invalid_request_error', billingMessages.topupsDisabled);
    return client;
  }

  async function receiptFor(userId: string, amountNano: bigint): Promise<YookassaReceipt | undefined> {
    if (config.yookassaReceiptVatCode === undefined) return undefined;
    const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
    if (!user) throw new AppError('unauthorized', accountsMessages.invalidToken);
    return {
      customer: { email: user.email },
      items: [
        {
          description: billingMessages.topupReceiptItem,
          quantity: 1,
          amountNano,
          vatCode: config.yookassaReceiptVatCode,
          paymentSubject: 'service',
          paymentMode: 'full_payment',
        },
      ],
    };
  }

  /** Pending → canceled with YooKassa's reason; a row already final stays as it is. */
  async function markCanceled(row: TopupRow, reason: string, payment: YookassaPayment | null): Promise<SettleOutcome> {
    const now = new Date();
    return db.transaction(async (tx) => {
      const changed = await tx
        .update(topups)
        .set({ status: 'canceled', cancellationReason: reason.slice(0, 200), paymentId: row.paymentId ?? payment?.id ?? null, checkedAt: now, updatedAt: now })
        .where(and(eq(topups.id, row.id), eq(topups.status, 'pending')))
        .returning({ id: topups.id });
      if (changed.length === 0) return 'already_final';
      await hooks?.canceled(tx, row, reason.slice(0, 200), payment);
      return 'canceled';
    });
  }

  /**
   * Credits a succeeded payment once (credit.ts: the ledger row's unique reference decides, in the same
   * transaction as the balance), and marks the top-up succeeded in that transaction.
   */
  async function credit(row: TopupRow, payment: YookassaPayment): Promise<SettleOutcome> {
    return db.transaction(async (tx) => {
      const credited = await creditTopupOnce(tx, { userId: row.userId, amountNano: row.amountNano, reference: `yookassa:${payment.id}` }, config);
      if (credited === null) return 'already_credited';
      const now = new Date();
      await tx
        .update(topups)
        .set({ status: 'succeeded', paymentId: payment.id, creditedAt: now, checkedAt: now, cancellationReason: null, updatedAt: now })
        .where(eq(topups.id, row.id));
      await hooks?.credited(tx, row, payment);
      return 'credited';
    });
  }

  /**
   * Applies a payment as YooKassa reported it on a re-read (the only state trusted): credit on success,
   * close on cancellation, note the check otherwise. Payments that are not ours, or do not match the
   * top-up they name, change nothing and are logged.
   */
  async function settle(payment: YookassaPayment): Promise<SettleOutcome> {
    const meta = payment.metadata ?? {};
    const named = typeof meta.topupId === 'string' && UUID.test(meta.topupId) ? meta.topupId : null;
    // Ours when we stored its id at creation, or — the answer carrying the id was lost — when our metadata
    // names a row that has no payment yet.
    const [row] = await db
      .select()
      .from(topups)
      .where(named ? or(eq(topups.paymentId, payment.id), and(eq(topups.id, named), isNull(topups.paymentId))) : eq(topups.paymentId, payment.id))
      .limit(1);
    if (!row) {
      logger.warn('yookassa payment matches no top-up', { paymentId: payment.id, status: payment.status });
      return 'unknown_payment';
    }
    const fields = { topupId: row.id, paymentId: payment.id, status: payment.status };
    if (named !== row.id || (typeof meta.userId === 'string' && meta.userId !== row.userId)) {
      logger.error('yookassa payment metadata does not match its top-up; nothing credited', fields);
      return 'mismatch';
    }

    switch (payment.status) {
      case 'succeeded': {
        if (!payment.paid || amountValueToNano(payment.amount.value) !== row.amountNano || payment.amount.currency !== row.currency) {
          logger.error('yookassa payment amount does not match its top-up; nothing credited', {
            ...fields,
            paid: payment.paid,
            paidAmount: `${payment.amount.value} ${payment.amount.currency}`,
            expected: `${nanoToDecimalString(row.amountNano)} ${row.currency}`,
          });
          return 'mismatch';
        }
        const outcome = await credit(row, payment);
        if (outcome === 'credited') logger.info('top-up credited', { ...fields, userId: row.userId, amount: nanoToDecimalString(row.amountNano) });
        return outcome;
      }
      case 'canceled': {
        if (row.status === 'succeeded') {
          logger.error('yookassa reports a credited top-up as canceled', fields);
          return 'already_final';
        }
        return markCanceled(row, payment.cancellation_details?.reason ?? 'canceled', payment);
      }
      default: {
        const now = new Date();
        await db
          .update(topups)
          .set({ checkedAt: now, paymentId: row.paymentId ?? payment.id, updatedAt: now })
          .where(eq(topups.id, row.id));
        return 'still_pending';
      }
    }
  }

  /** Re-reads one payment and applies what YooKassa says. Throws the client's error when it cannot ask. */
  async function reread(paymentId: string): Promise<SettleOutcome> {
    return settle(await requireClient().getPayment(paymentId));
  }

  return {
    settle,
    reread,
    receiptFor,
    /** Closes a pending top-up whose payment was never created (an auto payment YooKassa refused). */
    closeUncreated: (row: TopupRow) => markCanceled(row, 'payment_not_created', null),

    config(): BillingConfigView {
      return {
        enabled: client !== null,
        currency: config.balanceCurrency,
        minAmount: nanoToUnits(config.topupMinNano),
        maxAmount: nanoToUnits(config.topupMaxNano),
        registrationBonus: nanoToUnits(config.registrationBonusNano),
      };
    },

    /**
     * `receiptTo`: whose address the 54-ФЗ receipt goes to when not the account's own — in an organisation the
     * member paying (the organisation's account has no address anyone reads).
     */
    async create(userId: string, input: CreateTopupInput, receiptTo: string = userId): Promise<TopupView> {
      const yookassa = requireClient();
      const problem = topupAmountProblem(input.amount, limits);
      if (problem) throw new AppError('invalid_request_error', `${fieldLabel(['amount'], 'billing')}: ${problem}`, { param: 'amount' });
      const amountNano = topupAmountNano(input.amount)!;
      const receipt = await receiptFor(receiptTo, amountNano);
      // At most TOPUP_MAX_PENDING unpaid at once: each is a payment YooKassa keeps open and we re-read until
      // it ends. Counted under the user's row lock, so parallel requests cannot all slip under the cap.
      const row = await db.transaction(async (tx) => {
        await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
        const [pending] = await tx
          .select({ n: sql<number>`count(*)::int` })
          .from(topups)
          .where(and(eq(topups.userId, userId), eq(topups.status, 'pending')));
        if ((pending?.n ?? 0) >= config.topupMaxPending) {
          throw new AppError('invalid_request_error', billingMessages.topupTooManyPending(config.topupMaxPending));
        }
        const [inserted] = await tx
          .insert(topups)
          .values({ userId, amountNano, currency: config.balanceCurrency, saveCard: input.saveCard === true, actorId: receiptTo === userId ? null : receiptTo })
          .returning();
        return inserted!;
      });
      const id = row.id;

      let payment;
      try {
        payment = await yookassa.createPayment(
          {
            amountNano,
            currency: config.balanceCurrency,
            description: billingMessages.topupPaymentDescription(formatMoneyText(amountNano, config.balanceCurrency)),
            returnUrl: `${config.publicBaseUrl}/app/topups/${id}`,
            metadata: { topupId: id, userId },
            ...(receipt ? { receipt } : {}),
            ...(input.saveCard ? { savePaymentMethod: true } : {}),
          },
          id,
        );
      } catch (error) {
        const level = error instanceof YookassaApiError && !error.resultUnknown ? 'error' : 'warn';
        logger[level]('yookassa payment not created; top-up closed', { topupId: id, userId, error });
        await markCanceled(row, 'payment_not_created', null).catch((e) => logger.error('could not close a failed top-up', { topupId: id, error: e }));
        throw creationFailure(error);
      }

      const [saved] = await db
        .update(topups)
        .set({ paymentId: payment.id, confirmationUrl: payment.confirmation.confirmation_url, updatedAt: new Date() })
        .where(eq(topups.id, id))
        .returning();
      logger.info('top-up created', { topupId: id, userId, paymentId: payment.id, amount: nanoToDecimalString(amountNano) });
      return viewOf(saved!);
    },

    async list(userId: string, query: { limit: number; cursor?: string | undefined }) {
      requireClient();
      const filters = [eq(topups.userId, userId)];
      if (query.cursor) filters.push(afterCursor(topups.createdAt, topups.id, decodeCursor(query.cursor, UUID), 'desc'));
      const rows = await db
        .select({ topup: topups, cursorAt: cursorTime(topups.createdAt) })
        .from(topups)
        .where(and(...filters))
        .orderBy(desc(topups.createdAt), desc(topups.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.topup.id);
      return { topups: page.map((r) => viewOf(r.topup)), nextCursor };
    },

    /**
     * One top-up, for the page YooKassa returns the buyer to. A pending one is re-read first (at most every
     * few seconds), so the buyer sees the credit even before the notification arrives.
     */
    async get(userId: string, topupId: string): Promise<TopupView> {
      requireClient();
      if (!UUID.test(topupId)) throw new AppError('not_found', billingMessages.topupNotFound);
      const find = async () =>
        (
          await db
            .select()
            .from(topups)
            .where(and(eq(topups.id, topupId), eq(topups.userId, userId)))
        )[0];
      const row = await find();
      if (!row) throw new AppError('not_found', billingMessages.topupNotFound);
      const fresh = row.checkedAt && Date.now() - row.checkedAt.getTime() < RETURN_REFRESH_MS;
      if (row.status !== 'pending' || !row.paymentId || fresh) return viewOf(row);
      try {
        await reread(row.paymentId);
      } catch (error) {
        // The answer is still true as of the last check; the notification or the re-check will catch up.
        logger.warn('top-up refresh failed', { topupId, error });
        return viewOf(row);
      }
      return viewOf((await find()) ?? row);
    },

    /**
     * Pending top-ups due for a check, re-read through the same path as notifications: a lost
     * notification still credits. Rows whose payment was never recorded (a crash between creating it and
     * storing its id) are closed: their buyer never received a payment page.
     */
    async recheckDue(): Promise<RecheckResult> {
      const result: RecheckResult = { checked: 0, credited: 0, canceled: 0, failed: 0 };
      if (!client) return result;
      const recheck = config.topupRecheckSeconds;
      const orphans = await db
        .select()
        .from(topups)
        .where(
          and(
            eq(topups.status, 'pending'),
            isNull(topups.paymentId),
            lt(topups.createdAt, sql`now() - make_interval(secs => ${Math.max(recheck, ORPHAN_AFTER_SECONDS)}::int)`),
          ),
        )
        .limit(RECHECK_BATCH);
      for (const row of orphans) {
        if ((await markCanceled(row, 'payment_not_created', null)) === 'canceled') result.canceled += 1;
      }
      const due = await db
        .select()
        .from(topups)
        .where(
          and(
            eq(topups.status, 'pending'),
            sql`${topups.paymentId} is not null`,
            lt(topups.createdAt, sql`now() - make_interval(secs => ${recheck}::int)`),
            sql`(${topups.checkedAt} is null or ${topups.checkedAt} < now() - make_interval(secs => case
                  when ${topups.createdAt} < now() - make_interval(secs => ${STALE_AFTER_SECONDS}::int) then ${Math.max(recheck, STALE_RECHECK_SECONDS)}::int
                  else ${recheck}::int end))`,
          ),
        )
        .orderBy(sql`${topups.checkedAt} asc nulls first`, topups.createdAt)
        .limit(RECHECK_BATCH);
      for (const row of due) {
        result.checked += 1;
        try {
          const outcome = await reread(row.paymentId!);
          if (outcome === 'credited') result.credited += 1;
          if (outcome === 'canceled') result.canceled += 1;
        } catch (error) {
          result.failed += 1;
          logger.warn('top-up re-check failed', { topupId: row.id, paymentId: row.paymentId, error });
          // Noted as checked all the same, so one payment YooKassa keeps failing on cannot starve the rest.
          await db.update(topups).set({ checkedAt: new Date() }).where(eq(topups.id, row.id));
        }
      }
      return result;
    },
  };
}

export type TopupService = ReturnType<typeof createTopupService>;
