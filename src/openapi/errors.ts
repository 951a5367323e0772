// The error answers of the OpenAPI document: one schema per surface (the dashboard's {message, type},
// /v1's OpenAI object) and, per status, a Russian description with an example body. The statuses a
// route can answer follow from what it is (document.ts); a procedure names the rest in its meta.
import { errorTypes, type ErrorType } from '../http/errors';
import { errorMessages } from '../http/messages';

export const ERROR_SCHEMA = {
  type: 'object',
  description: 'Ошибка: сообщение на русском и машинный тип (decisions.md)',
  properties: {
    error: {
      type: 'object',
      properties: {
        message: { type: 'string', description: 'Сообщение для человека (на русском); при ошибке в поле начинается с его названия' },
        type: { type: 'string', enum: Object.keys(errorTypes), description: 'Машинный тип ошибки' },
        code: {
          type: 'string',
          enum: ['totp_required', 'totp_invalid'],
          description: 'Уточнение для клиента, где оно нужно: при входе totp_required — пароль верен, нужен код второго фактора (totpCode)',
        },
      },
      required: ['message', 'type'],
    },
  },
  required: ['error'],
} as const;

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 429 | 500 | 502 | 503 | 504;

/** What each status means on any route, its error type and the message a client would read. */
export const STATUS_ERRORS: Record<ErrorStatus, { type: ErrorType; description: string; message: string }> = {
  400: {
    type: 'invalid_request_error',
    description: 'Некорректный запрос: поле не прошло проверку (сообщение называет его), тело не JSON-объект или не application/json',
    message: `${errorMessages.validationFailed}: E-mail: Укажите корректный e-mail`,
  },
  401: { type: 'unauthorized', description: 'Нет учётных данных, они неверны или истекли', message: errorMessages.missingCredential },
  402: { type: 'insufficient_balance', description: 'Баланса не хватает на запрос', message: errorMessages.insufficientBalance },
  403: {
    type: 'forbidden',
    description: 'Доступ запрещён: учётная запись заблокирована, ключ отозван или ресурс принадлежит другому пользователю',
    message: errorMessages.forbidden,
  },
  404: { type: 'not_found', description: 'Ресурс не найден (или маршрут неизвестен)', message: errorMessages.notFound },
  409: { type: 'conflict', description: 'Конфликт с текущим состоянием ресурса', message: errorMessages.conflict },
  413: { type: 'payload_too_large', description: 'Тело запроса больше BODY_LIMIT_BYTES', message: errorMessages.payloadTooLarge },
  429: {
    type: 'rate_limit_exceeded',
    description: 'Слишком много одновременных запросов с адреса клиента; повторите позже (Retry-After, где известно)',
    message: errorMessages.tooManyConnections,
  },
  500: { type: 'internal_error', description: 'Внутренняя ошибка сервера (без подробностей в ответе)', message: errorMessages.internal },
  502: { type: 'upstream_error', description: 'Внешний сервис не ответил как следует', message: errorMessages.upstreamError },
  503: {
    type: 'service_unavailable',
    description: 'База данных временно недоступна; повторите через Retry-After секунд',
    message: errorMessages.serviceUnavailable,
  },
  504: { type: 'upstream_timeout', description: 'Внешний сервис не ответил вовремя', message: errorMessages.upstreamTimeout },
};

const RETRY_AFTER = { description: 'Через сколько секунд повторить запрос', schema: { type: 'integer', example: 5 } };

/** A dashboard error answer: our body, an example of it, and what it means on this route. */
export function dashboardError(status: ErrorStatus, description?: string) {
  const known = STATUS_ERRORS[status];
  return {
    description: description ?? known.description,
    ...(status === 429 || status === 503 ? { headers: { 'retry-after': RETRY_AFTER } } : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        example: { error: { message: known.message, type: known.type } },
      },
    },
  };
}

/**
 * Dashboard error answers by status: each status with what it means on this route, or undefined for what
 * it means on any route. (Statuses are integer keys: JSON lists them in ascending order.)
 */
export function dashboardErrors(entries: Partial<Record<ErrorStatus, string | undefined>>) {
  return Object.fromEntries(Object.entries(entries).map(([status, text]) => [status, dashboardError(Number(status) as ErrorStatus, text)]));
}
