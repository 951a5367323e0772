// VK's Callback API (integrations/social/webhook.ts), verified by the secret in each event: the
// confirmation code for setting the server up by hand, and the community's events.
import { defineRawRoute } from '../../http/raw-route';
import { agentIdParam, jsonBody, WEBHOOK_TAG, webhookErrors } from '../../openapi/webhooks';
import type { SocialWebhook } from './webhook';

const PATH_PARAMETERS = [agentIdParam('Агент, чьё сообщество ВКонтакте настроено')];

export const socialConfirmationCodeRoute = defineRawRoute<{ social: { webhook: Pick<SocialWebhook, 'confirmation'> } }>({
  method: 'GET',
  path: '/api/v1/social/webhook/:agentId',
  auth: 'webhookSecret',
  info: 'social.callback',
  openapi: {
    pathParameters: PATH_PARAMETERS,
    operation: {
      tags: [WEBHOOK_TAG.name],
      operationId: 'webhooks.socialConfirmationCode',
      summary: 'Код подтверждения сервера Callback API (текстом)',
      description: 'Для ручной настройки сервера в сообществе: тот код, который Conduit вернёт ВКонтакте на событие confirmation.',
      responses: {
        '200': { description: 'Код подтверждения', content: { 'text/plain': { schema: { type: 'string' }, example: 'a1b2c3d4' } } },
        ...webhookErrors({ 404: 'Код ещё не известен: запросите его в настройках интеграции' }, false),
      },
    },
  },
  handle: ({ params }, { social }) => social.webhook.confirmation(params.agentId!),
});

export const socialCallbackRoute = defineRawRoute<{ social: { webhook: Pick<SocialWebhook, 'handle'> } }>({
  method: 'POST',
  path: '/api/v1/social/webhook/:agentId',
  auth: 'webhookSecret',
  info: 'social.callback',
  parse: 'none',
  openapi: {
    pathParameters: PATH_PARAMETERS,
    operation: {
      tags: [WEBHOOK_TAG.name],
      operationId: 'webhooks.socialCallback',
      summary: 'Callback API ВКонтакте: события сообщества',
      description:
        'На confirmation отвечает кодом подтверждения; любое другое событие должно нести secret, равный секретному ключу агента ' +
        '(иначе 403 и ничего не делается), записывается по event_id (повтор выполняется один раз) и получает text/plain «ok».',
      requestBody: jsonBody(
        {
          type: 'object',
          required: ['type'],
          properties: {
            type: { type: 'string', description: 'Тип события: confirmation, message_new, message_event…' },
            group_id: { type: 'integer', description: 'ID сообщества' },
            event_id: { type: 'string', description: 'Идентификатор доставки (для всех событий, кроме confirmation)' },
            secret: { type: 'string', description: 'Секретный ключ из настроек агента' },
            object: { type: 'object', additionalProperties: true },
          },
          additionalProperties: true,
        },
        { type: 'message_new', group_id: 123456, event_id: 'a6d2a1a0e9f6', secret: 'S3cretKey2026', object: { message: { from_id: 1, text: 'Привет' } } },
      ),
      responses: {
        '200': { description: '«ok» или код подтверждения', content: { 'text/plain': { schema: { type: 'string' }, example: 'ok' } } },
        ...webhookErrors({
          400: 'Тело не JSON-событие или в событии нет event_id',
          403: 'Неверный секретный ключ события',
          404: 'У агента не подключено сообщество (или код подтверждения ещё не известен)',
        }),
      },
    },
  },
  handle: ({ request, params }, { social }) => social.webhook.handle(request, params.agentId!),
});
