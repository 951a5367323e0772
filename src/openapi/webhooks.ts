// What the inbound webhooks' OpenAPI operations share (each is described in its feature's *.route.ts): they
// are no tRPC procedures, each is verified by its own secret rather than a user's credential (auth
// `webhookSecret`: no security requirement), and the statuses are those their handlers answer.
import { dashboardErrors, type ErrorStatus } from './errors';

export const WEBHOOK_TAG = {
  name: 'webhooks',
  description: 'Входящие вызовы внешних сервисов (ВКонтакте, Telegram, ЮKassa): проверяются секретом, а не ключом пользователя',
};

export const agentIdParam = (description: string) => ({
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
export const webhookErrors = (specific: Partial<Record<ErrorStatus, string | undefined>>, withBody = true) =>
  dashboardErrors({ ...(withBody ? { 413: undefined } : {}), 429: undefined, 500: undefined, 503: undefined, ...specific });

/** A required JSON request body with its example. */
export const jsonBody = (schema: Record<string, unknown>, example: unknown) => ({ required: true, content: { 'application/json': { schema, example } } });

export const OK_JSON = {
  description: 'Принято (повторная доставка того же события тоже получает 200 и ничего не делает)',
  content: {
    'application/json': {
      schema: { type: 'object', properties: { ok: { type: 'boolean', const: true } }, required: ['ok'] },
      example: { ok: true },
    },
  },
};

export const YOOKASSA_NOTIFICATION = {
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
export const YOOKASSA_EXAMPLE = {
  type: 'notification',
  event: 'payment.succeeded',
  object: { id: '2c7b5b6a-000f-5000-9000-1b68e7b15f3f', status: 'succeeded', amount: { value: '500.00', currency: 'RUB' } },
};
