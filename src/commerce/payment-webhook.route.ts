// The payment provider's notifications about a shop's orders (commerce/payments.ts), verified by the
// per-agent secret in the URL; counted in the metrics as payment webhook events.
import { defineRawRoute } from '../http/raw-route';
import { countedPaymentEvent, type WebhookEventCounter } from '../metrics/webhook-events';
import { agentIdParam, jsonBody, OK_JSON, WEBHOOK_TAG, webhookErrors, YOOKASSA_EXAMPLE, YOOKASSA_NOTIFICATION } from '../openapi/webhooks';
import type { PaymentWebhook } from './payments';

export const orderPaymentWebhookRoute = defineRawRoute<{ commerce: { payments: Pick<PaymentWebhook, 'handle'> }; metrics: WebhookEventCounter }>({
  method: 'POST',
  path: '/api/v1/commerce/webhook/:agentId',
  auth: 'webhookSecret',
  info: { key: 'commerce.paymentWebhook', query: '?token=<secret>' },
  parse: 'none',
  openapi: {
    pathParameters: [agentIdParam('Агент-магазин, чей заказ оплачен')],
    operation: {
      tags: [WEBHOOK_TAG.name],
      operationId: 'webhooks.orderPayment',
      summary: 'Уведомление об оплате заказа магазина',
      description:
        'Секрет из адреса уведомления (token в строке запроса или Authorization: Bearer). Если у магазина своя ЮKassa, платёж перечитывается у неё; ' +
        'каждое проверенное уведомление подтверждается 200.',
      parameters: [
        {
          name: 'token',
          in: 'query',
          required: false,
          description: 'Секрет уведомлений магазина (из настроек магазина)',
          schema: { type: 'string' },
          example: 'f3e2d1c0b9a8',
        },
      ],
      requestBody: jsonBody(YOOKASSA_NOTIFICATION, YOOKASSA_EXAMPLE),
      responses: {
        '200': OK_JSON,
        ...webhookErrors({
          400: 'Тело не похоже на уведомление ЮKassa',
          403: 'Неверный секрет или адрес отправителя не ЮKassa',
          404: 'У агента не настроен магазин',
          502: 'ЮKassa недоступна: уведомление не проверено, его доставят снова',
        }),
      },
    },
  },
  handle: ({ request, params }, { commerce, metrics }) => countedPaymentEvent(metrics, commerce.payments.handle(request, params.agentId!)),
});
