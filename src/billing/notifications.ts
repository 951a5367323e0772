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
// The re-read is the protection; when the operator sets YOOKASSA_NOTIFICATION_IPS the sender's address is
// checked first as well (403 otherwise), which also spares YooKassa the re-reads a stranger's posts would cause.
import { readBodyText } from '../http/body';
import { AppError, errorResponse } from '../http/errors';
import { parseJsonBody } from '../http/json';
import { errorMessages } from '../http/messages';
import { findUnstorableText } from '../http/text';
import type { Logger } from '../logger';
import type { NotificationSenders } from '../payments/notification-senders';
import { isYookassaError, YookassaApiError } from '../payments/yookassa';
import type { TopupService } from './topups';

const MAX_NOTIFICATION_BYTES = 64 * 1024;

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
  /** Set when YOOKASSA_NOTIFICATION_IPS is: only those addresses may post. */
  senders?: NotificationSenders | null;
}) {
  const { topups, logger } = deps;

  return {
    async handle(request: Request): Promise<Response> {
      if (!deps.enabled) return errorResponse(new AppError('invalid_request_error', errorMessages.yookassaNotificationsDisabled));
      const sender = deps.senders?.check(request);
      if (sender && !sender.allowed) {
        logger.warn('yookassa notification from an address not in YOOKASSA_NOTIFICATION_IPS; refused', { address: sender.address });
        return errorResponse(new AppError('forbidden', errorMessages.paymentUntrustedSender));
      }
      let notification: unknown;
      try {
        // Too deep is a 400 like any body that is no notification: YooKassa's are shallow, and it retries a
        // real one it could not deliver.
        notification = parseJsonBody(await readBodyText(request, MAX_NOTIFICATION_BYTES));
      } catch (error) {
        if (error instanceof AppError) return errorResponse(error);
        return errorResponse(new AppError('invalid_request_error', errorMessages.malformedJson));
      }
      if (!isNotification(notification)) return errorResponse(new AppError('invalid_request_error', errorMessages.yookassaBadNotification));
      // The payment id goes into YooKassa's URL and our queries: text PostgreSQL cannot hold is no payment id.
      const unstorable = findUnstorableText(notification);
      if (unstorable !== null) return errorResponse(new AppError('invalid_request_error', errorMessages.unstorableText(unstorable)));
      const { event, object } = notification;
      // Refund and payout events carry other objects; top-ups act on payments only.
      if (!event.startsWith('payment.')) {
        logger.info('yookassa notification ignored', { event, objectId: object.id });
        return ok();
      }
      try {
        const outcome = await topups.reread(object.id);
        logger.info('yookassa notification', { event, paymentId: object.id, outcome });
        return ok();
      } catch (error) {
        if (error instanceof YookassaApiError && error.kind === 'not_found') {
          logger.warn('yookassa notification for a payment YooKassa does not know', { event, paymentId: object.id });
          return ok();
        }
        // Anything else (the database) is ours: the app's error handler logs it and answers 500.
        if (!isYookassaError(error)) throw error;
        logger.error('yookassa notification could not be verified; YooKassa will redeliver it', { event, paymentId: object.id, error });
        return errorResponse(new AppError('upstream_error', errorMessages.yookassaVerifyUnavailable));
      }
    },
  };
}

export type TopupNotifications = ReturnType<typeof createTopupNotifications>;
