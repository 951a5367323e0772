// YooKassa's top-up notifications (billing/notifications.ts): unsigned, so each one is verified by
// re-reading the payment; counted in the metrics as payment webhook events.
import { defineRawRoute } from '../http/raw-route';
import { countedPaymentEvent, type WebhookEventCounter } from '../metrics/webhook-events';
import { jsonBody, OK_JSON, WEBHOOK_TAG, webhookErrors, YOOKASSA_EXAMPLE, YOOKASSA_NOTIFICATION } from '../openapi/webhooks';
import type { TopupNotifications } from './notifications';

export const yookassaNotificationsRoute = defineRawRoute<{ topups: { notifications: Pick<TopupNotifications, 'handle'> }; metrics: WebhookEventCounter }>({
  method: 'POST',
  path: '/api/billing/yookassa/notifications',
  auth: 'webhookSecret',
  info: 'billing.yookassaNotifications',
  parse: 'none',
  openapi: {
    operation: {
      tags: [WEBHOOK_TAG.name],
      operationId: 'webhooks.topupPayment',
      summary: 'Уведомления ЮKassa о пополнениях баланса',
      description:
        'Уведомления не подписаны: каждое проверяется повторным чтением платежа у ЮKassa, и только после этого баланс пополняется (один раз на платёж). ' +
        'Принимаются только с адресов ЮKassa (YOOKASSA_NOTIFICATION_IPS, по умолчанию опубликованный список) и только с идентификатором платежа ' +
        'в формате ЮKassa (36 символов); с одного адреса — не больше 20 повторных чтений в минуту, не нашедших нашего пополнения.',
      requestBody: jsonBody(YOOKASSA_NOTIFICATION, YOOKASSA_EXAMPLE),
      responses: {
        '200': OK_JSON,
        ...webhookErrors({
          400: 'Пополнение не настроено, тело не похоже на уведомление ЮKassa или идентификатор платежа не в формате ЮKassa',
          403: 'Адрес отправителя не из YOOKASSA_NOTIFICATION_IPS',
          429: 'Слишком много уведомлений с этого адреса о платежах, которых у нас нет (Retry-After)',
          502: 'ЮKassa недоступна: уведомление не проверено, его доставят снова',
        }),
      },
    },
  },
  handle: ({ request }, { topups, metrics }) => countedPaymentEvent(metrics, topups.notifications.handle(request)),
});
