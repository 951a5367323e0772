// POST /api/billing/yookassa/notifications — YooKassa's HTTP notifications about top-up payments:
//   {"type": "notification", "event": "payment.succeeded", "object": {"id": "<payment id>", "status": …, …}}
// YooKassa signs nothing, so the body is only a hint of which payment to look at: the payment is re-read
// with GET /payments/{id} and only that answer is acted on (topups.ts settles it). A forged or stale body
// therefore changes nothing.
//
// Answers. YooKassa redelivers a notification until it gets a 200, so every well-formed notification is
// answered 200 once it has been handled — including payments that are not ours and amounts that do not
// match (logged; a redelivery could not change them). A body that is not JSON or not a notification is a
// 400. When YooKassa cannot be asked (network, 5xx, 429, or our credentials refused) the answer is 502:
// nothing was verified, and the redelivery is what retries it (the periodic re-check is the second net).
//
// The re-read is the protection. Before it, three checks spare YooKassa (and our shop's standing with it)
// the re-reads a stranger's posts would cause: the sender's address must be one YooKassa sends from
// (YOOKASSA_NOTIFICATION_IPS, by default its published list; 403 otherwise; empty switches the check off),
// the payment id must look like one of YooKassa's (400), and one address gets at most
// WASTED_REREADS_PER_MINUTE re-reads that find no payment of ours (429 with Retry-After after that, which
// YooKassa's redelivery honours; the periodic re-check is the second net). A re-read that finds one of our
// top-ups costs nothing, so YooKassa's real notifications never run into the limit.
import { readBodyText } from '../http/body';
import { AppError } from '../http/errors';
import { parseJsonBody } from '../http/json';
import { errorMessages } from '../http/messages';
import { billingMessages } from './texts';
import { paymentsMessages } from '../payments/texts';
import { findUnstorableText } from '../http/text';
import type { Logger } from '../logger';
import type { NotificationSenders } from '../payments/notification-senders';
import { isYookassaError, isYookassaPaymentId, YookassaApiError } from '../payments/yookassa';
import type { TopupService } from './topups';

const MAX_NOTIFICATION_BYTES = 64 * 1024;
/**
 * Per instance, in memory: the point is a bound on what one sender can make us ask YooKassa in vain, not an
 * exact count across instances.
 */
const WASTED_REREADS_PER_MINUTE = 20;
const WINDOW_MS = 60_000;
/** Past this many addresses, windows that have ended are forgotten. */
const PRUNE_AT = 10_000;

/**
 * Fixed one-minute windows per address. A re-read takes its place before YooKassa is asked (so a burst of
 * parallel posts cannot all get in first) and gives it back when it found a payment of ours.
 */
function createRereadThrottle(limit: number, now: () => number = Date.now) {
  const windows = new Map<string, { startedAt: number; count: number }>();
  return {
    /** Null when the re-read may go ahead, else the seconds until this address may ask again. */
    take(address: string): number | null {
      const at = now();
      if (windows.size >= PRUNE_AT) for (const [key, w] of windows) if (at - w.startedAt >= WINDOW_MS) windows.delete(key);
      let w = windows.get(address);
      if (!w || at - w.startedAt >= WINDOW_MS) {
        w = { startedAt: at, count: 0 };
        windows.set(address, w);
      }
      if (w.count >= limit) return Math.max(1, Math.ceil((w.startedAt + WINDOW_MS - at) / 1000));
      w.count += 1;
      return null;
    },
    giveBack(address: string): void {
      const w = windows.get(address);
      if (w && w.count > 0) w.count -= 1;
    },
  };
}

interface Notification {
  type: 'notification';
  event: string;
  object: { id: string };
}

function isNotification(value: unknown): value is Notification {
  const v = value as Notification | null;
  return (
    !!v &&
    typeof v === 'object' &&
    v.type === 'notification' &&
    typeof v.event === 'string' &&
    v.event.length <= 100 &&
    !!v.object &&
    typeof v.object === 'object' &&
    typeof v.object.id === 'string' &&
    v.object.id.length > 0 &&
    v.object.id.length <= 100
  );
}

const ok = () => new Response(JSON.stringify({ ok: true }), { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });

export function createTopupNotifications(deps: {
  topups: TopupService;
  enabled: boolean;
  logger: Logger;
  /** YooKassa's addresses (YOOKASSA_NOTIFICATION_IPS); null when the operator switched the check off. */
  senders?: NotificationSenders | null;
  /** The sender's address as TRUST_PROXY decides it: the key of the re-read throttle. */
  addressOf: (request: Request) => string;
}) {
  const { topups, logger } = deps;
  const throttle = createRereadThrottle(WASTED_REREADS_PER_MINUTE);

  return {
    async handle(request: Request): Promise<Response> {
      if (!deps.enabled) throw new AppError('invalid_request_error', billingMessages.yookassaNotificationsDisabled);
      const sender = deps.senders?.check(request);
      if (sender && !sender.allowed) {
        logger.warn('yookassa notification from an address not in YOOKASSA_NOTIFICATION_IPS; refused', { address: sender.address });
        throw new AppError('forbidden', paymentsMessages.paymentUntrustedSender);
      }
      let notification: unknown;
      try {
        // Too deep is a 400 like any body that is no notification: YooKassa's are shallow, and it retries a
        // real one it could not deliver.
        notification = parseJsonBody(await readBodyText(request, MAX_NOTIFICATION_BYTES));
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw new AppError('invalid_request_error', errorMessages.malformedJson);
      }
      if (!isNotification(notification)) throw new AppError('invalid_request_error', billingMessages.yookassaBadNotification);
      // The payment id goes into YooKassa's URL and our queries: text PostgreSQL cannot hold is no payment id.
      const unstorable = findUnstorableText(notification);
      if (unstorable !== null) throw new AppError('invalid_request_error', errorMessages.unstorableText(unstorable));
      const { event, object } = notification;
      // Refund and payout events carry other objects; top-ups act on payments only.
      if (!event.startsWith('payment.')) {
        logger.info('yookassa notification ignored', { event, objectId: object.id });
        return ok();
      }
      if (!isYookassaPaymentId(object.id)) throw new AppError('invalid_request_error', billingMessages.yookassaBadPaymentId);
      const address = sender?.address ?? deps.addressOf(request);
      const wait = throttle.take(address);
      if (wait !== null) {
        logger.warn('yookassa notifications: too many naming no payment of ours from one address; refused for now', { address, paymentId: object.id });
        throw new AppError('rate_limit_exceeded', billingMessages.yookassaNotificationsThrottled, { headers: { 'retry-after': String(wait) } });
      }
      try {
        const outcome = await topups.reread(object.id);
        if (outcome !== 'unknown_payment') throttle.giveBack(address);
        logger.info('yookassa notification', { event, paymentId: object.id, outcome });
        return ok();
      } catch (error) {
        if (!(error instanceof YookassaApiError && error.kind === 'not_found')) throttle.giveBack(address);
        if (error instanceof YookassaApiError && error.kind === 'not_found') {
          logger.warn('yookassa notification for a payment YooKassa does not know', { event, paymentId: object.id });
          return ok();
        }
        // Anything else (the database) is ours: the app's error handler logs it and answers 500.
        if (!isYookassaError(error)) throw error;
        logger.error('yookassa notification could not be verified; YooKassa will redeliver it', { event, paymentId: object.id, error });
        throw new AppError('upstream_error', paymentsMessages.yookassaVerifyUnavailable);
      }
    },
  };
}

export type TopupNotifications = ReturnType<typeof createTopupNotifications>;
