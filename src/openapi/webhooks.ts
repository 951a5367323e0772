// The raw routes other services call (inbound webhooks), described by hand: they are no tRPC
// procedures. Each is verified by its own secret, not by a user's credential, so none has
// a security requirement; the statuses are those their handlers answer.
import { dashboardErrors, type ErrorStatus } from './errors';

export const WEBHOOK_TAG = {
  name: 'webhooks',
  description: 'Входящие вызовы внешних сервисов (ВКонтакте, Telegram, ЮKassa): проверяются секретом, а не ключом пользователя',
};

const agentIdParam = (description: string) => ({
  name: 'agentId',
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', format: 'uuid' },
  example: '0f8fad5b-d9cb-469f-a165-70867728950e',
});

/**
 * A webhook's error answers: those every raw route can give (429 from the per-address cap, 500, 503; 413
 * where it takes a body) with the meanings a route gives them in `specific`, plus its own.
 */
const webhookErrors = (specific: Partial<Record<ErrorStatus, string | undefined>>, withBody = true) =>
  dashboardErrors({ ...(withBody ? { 413: undefined } : {}), 429: undefined, 500: undefined, 503: undefined, ...specific });

/** A required JSON request body with its example. */
const jsonBody = (schema: Record<string, unknown>, example: unknown) => ({ required: true, content: { 'application/json': { schema, example } } });

const OK_JSON = {
  description: 'Принято (повторная доставка того же события тоже получает 200 и ничего не делает)',
  content: {
    'application/json': {
      schema: { type: 'object', properties: { ok: { type: 'boolean', const: true } }, required: ['ok'] },
      example: { ok: true },
    },
  },
};

const YOOKASSA_NOTIFICATION = {
  type: 'object',
  description: 'Уведомление ЮKassa; само по себе не доверенное: платёж перечитывается у ЮKassa',
  required: ['type', 'event', 'object'],
  properties: {
    type: { type: 'string', const: 'notification' },
    event: { type: 'string', description: 'Событие, например payment.succeeded' },
    object: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string', description: 'Идентификатор платежа ЮKassa' }, status: { type: 'string' } },
      additionalProperties: true,
    },
  },
  additionalProperties: true,
};
const YOOKASSA_EXAMPLE = {
  type: 'notification',
  event: 'payment.succeeded',
  object: { id: '2c7b5b6a-000f-5000-9000-1b68e7b15f3f', status: 'succeeded', amount: { value: '500.00', currency: 'RUB' } },
};

export function webhookPaths() {
  return {
    '/api/v1/social/webhook/{agentId}': {
      parameters: [agentIdParam('Агент, чьё сообщество ВКонтакте настроено')],
      get: {
        tags: [WEBHOOK_TAG.name],
        operationId: 'webhooks.socialConfirmationCode',
        summary: 'Код подтверждения сервера Callback API (текстом)',
        description: 'Для ручной настройки сервера в сообществе: тот код, который Conduit вернёт ВКонтакте на событие confirmation.',
        security: [],
        responses: {
          '200': { description: 'Код подтверждения', content: { 'text/plain': { schema: { type: 'string' }, example: 'a1b2c3d4' } } },
          ...webhookErrors({ 404: 'Код ещё не известен: запросите его в настройках интеграции' }, false),
        },
      },
      post: {
        tags: [WEBHOOK_TAG.name],
        operationId: 'webhooks.socialCallback',
        summary: 'Callback API ВКонтакте: события сообщества',
        description:
          'На confirmation отвечает кодом подтверждения; любое другое событие должно нести secret, равный секретному ключу агента ' +
          '(иначе 403 и ничего не делается), записывается по event_id (повтор выполняется один раз) и получает text/plain «ok».',
        security: [],
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
    '/api/v1/messenger/{agentId}/webhook': {
      parameters: [agentIdParam('Агент, чей бот Telegram настроен')],
      post: {
        tags: [WEBHOOK_TAG.name],
        operationId: 'webhooks.telegramUpdate',
        summary: 'Вебхук Telegram: обновления бота',
        description:
          'Telegram присылает объект Update; заголовок X-Telegram-Bot-Api-Secret-Token должен совпасть с секретом, заданным при регистрации вебхука. ' +
          'Обновление записывается по update_id (повтор подтверждается и не выполняется снова).',
        security: [],
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
    '/api/v1/commerce/webhook/{agentId}': {
      parameters: [agentIdParam('Агент-магазин, чей заказ оплачен')],
      post: {
        tags: [WEBHOOK_TAG.name],
        operationId: 'webhooks.orderPayment',
        summary: 'Уведомление об оплате заказа магазина',
        description:
          'Секрет из адреса уведомления (token в строке запроса или Authorization: Bearer). Если у магазина своя ЮKassa, платёж перечитывается у неё; ' +
          'каждое проверенное уведомление подтверждается 200.',
        security: [],
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
    '/api/billing/yookassa/notifications': {
      post: {
        tags: [WEBHOOK_TAG.name],
        operationId: 'webhooks.topupPayment',
        summary: 'Уведомления ЮKassa о пополнениях баланса',
        description:
          'Уведомления не подписаны: каждое проверяется повторным чтением платежа у ЮKassa, и только после этого баланс пополняется (один раз на платёж). ' +
          'Принимаются только с адресов ЮKassa (YOOKASSA_NOTIFICATION_IPS, по умолчанию опубликованный список) и только с идентификатором платежа ' +
          'в формате ЮKassa (36 символов); с одного адреса — не больше 20 повторных чтений в минуту, не нашедших нашего пополнения.',
        security: [],
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
  };
}
