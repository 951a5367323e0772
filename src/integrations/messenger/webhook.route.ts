// Called by Telegram (integrations/messenger/webhook.ts), verified by its secret header: raw, outside the
// JWT-guarded REST routes.
import { defineRawRoute } from '../../http/raw-route';
import { agentIdParam, jsonBody, OK_JSON, WEBHOOK_TAG, webhookErrors } from '../../openapi/webhooks';
import type { MessengerWebhook } from './webhook';

export const telegramWebhookRoute = defineRawRoute<{ messenger: { webhook: Pick<MessengerWebhook, 'handle'> } }>({
  method: 'POST',
  path: '/api/v1/messenger/:agentId/webhook',
  auth: 'webhookSecret',
  info: 'messenger.webhook',
  parse: 'none',
  openapi: {
    pathParameters: [agentIdParam('Агент, чей бот Telegram настроен')],
    operation: {
      tags: [WEBHOOK_TAG.name],
      operationId: 'webhooks.telegramUpdate',
      summary: 'Вебхук Telegram: обновления бота',
      description:
        'Telegram присылает объект Update; заголовок X-Telegram-Bot-Api-Secret-Token должен совпасть с секретом, заданным при регистрации вебхука. ' +
        'Обновление записывается по update_id (повтор подтверждается и не выполняется снова).',
      parameters: [
        {
          name: 'X-Telegram-Bot-Api-Secret-Token',
          in: 'header',
          required: true,
          description: 'Секрет вебхука, который Conduit передал Telegram в setWebhook',
          schema: { type: 'string' },
          example: 'b2f1c0d9e8a7',
        },
      ],
      requestBody: jsonBody(
        {
          type: 'object',
          required: ['update_id'],
          properties: { update_id: { type: 'integer', minimum: 0 }, message: { type: 'object', additionalProperties: true } },
          additionalProperties: true,
        },
        { update_id: 100200300, message: { message_id: 1, chat: { id: 42, type: 'private' }, text: '/start' } },
      ),
      responses: {
        '200': OK_JSON,
        ...webhookErrors({
          400: 'Тело не объект Update с целым update_id',
          403: 'Неверный секрет вебхука',
          404: 'Вебхук для этого агента не настроен',
        }),
      },
    },
  },
  handle: ({ request, params }, { messenger }) => messenger.webhook.handle(request, params.agentId!),
});
