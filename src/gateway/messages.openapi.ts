// The OpenAPI operations of /v1/messages and /v1/messages/count_tokens (messages.route.ts): Anthropic's
// Messages API, its errors in Anthropic's shape. Our error types map to Anthropic's by http/errors.ts:
// unauthorized → authentication_error 401, no balance → billing_error 402 (Anthropic's own type for it),
// a revoked key → permission_error 403, rate limits → rate_limit_error 429, an upstream failure →
// api_error 502, a provider's 529 → overloaded_error 529, a late provider → timeout_error 504, an oversized
// body → request_too_large 413.
import { errorMessages } from '../http/messages';
import { keysMessages } from '../keys';
import { V1_TAG } from './v1.openapi';

const json = (schema: Record<string, unknown>, example: unknown) => ({ 'application/json': { schema, example } });

const ANTHROPIC_ERROR = {
  type: 'object',
  description: 'Ошибка в формате Anthropic: {type: "error", error: {type, message}}; сообщение на русском',
  properties: {
    type: { type: 'string', enum: ['error'] },
    error: {
      type: 'object',
      properties: {
        type: { type: 'string', description: 'Тип ошибки Anthropic (authentication_error, rate_limit_error, overloaded_error…)' },
        message: { type: 'string' },
      },
      required: ['type', 'message'],
    },
  },
  required: ['type', 'error'],
} as const;

const HEADERS = {
  'request-id': { description: 'Идентификатор запроса (как у Anthropic; тот же в x-request-id)', schema: { type: 'string' } },
  'x-request-id': { description: 'Идентификатор запроса', schema: { type: 'string' } },
};

const error = (description: string, type: string, message: string) => ({
  description,
  headers: HEADERS,
  content: json(ANTHROPIC_ERROR, { type: 'error', error: { type, message } }),
});

const ERRORS = {
  '400': error(
    'Некорректный запрос (например, нет max_tokens); ответ 4xx провайдера передаётся со своим статусом',
    'invalid_request_error',
    `${errorMessages.validationFailed}: max_tokens: обязательное поле`,
  ),
  '401': error('Нет ключа (x-api-key или Authorization: Bearer), ключ неверный или истёк', 'authentication_error', keysMessages.invalidApiKey),
  '402': error('Баланса (или лимита расходов ключа) не хватает на запрос', 'billing_error', errorMessages.insufficientBalance),
  '403': error('Ключ отозван или учётная запись заблокирована', 'permission_error', keysMessages.revokedApiKey),
  '409': error('Запрос с этим Idempotency-Key ещё выполняется или был потоковым', 'conflict_error', 'Запрос с этим Idempotency-Key ещё выполняется'),
  '413': error('Тело запроса больше BODY_LIMIT_BYTES', 'request_too_large', errorMessages.payloadTooLarge),
  '429': error('Превышен лимит запросов ключа', 'rate_limit_error', errorMessages.rateLimited),
  '502': error('Провайдер модели не ответил как следует', 'api_error', errorMessages.upstreamError),
  '504': error('Провайдер модели не ответил вовремя', 'timeout_error', errorMessages.upstreamTimeout),
  '529': error('Провайдер модели перегружен (его 529 передаётся как есть)', 'overloaded_error', errorMessages.upstreamError),
};

const MODEL = { type: 'string', description: 'Модель в виде <владелец>/<модель>', example: 'anthropic/claude-sonnet-4' };
const MESSAGES = {
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    required: ['role', 'content'],
    properties: { role: { type: 'string', enum: ['user', 'assistant'] }, content: { description: 'Строка или массив блоков (text, image, tool_use, tool_result…)' } },
    additionalProperties: true,
  },
};
const PROMPT_FIELDS = {
  model: MODEL,
  messages: MESSAGES,
  system: { description: 'Строка или массив блоков {type: "text", text}' },
  tools: {
    type: 'array',
    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, input_schema: { type: 'object' } }, additionalProperties: true },
  },
  tool_choice: { type: 'object', properties: { type: { type: 'string', enum: ['auto', 'any', 'tool', 'none'] } }, additionalProperties: true },
};
const EXAMPLE = { model: 'anthropic/claude-sonnet-4', max_tokens: 1024, messages: [{ role: 'user', content: 'Привет' }] };
const ANSWER_EXAMPLE = {
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  type: 'message',
  role: 'assistant',
  model: 'anthropic/claude-sonnet-4',
  content: [{ type: 'text', text: 'Здравствуйте!' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 6 },
};
const STREAM_EXAMPLE =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"anthropic/claude-sonnet-4","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":0}}}\n\n' +
  'event: ping\ndata: {"type":"ping"}\n\n' +
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Здравствуйте!"}}\n\n' +
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":12,"output_tokens":6}}\n\n' +
  'event: message_stop\ndata: {"type":"message_stop"}\n\n';

const VERSION_HEADERS = [
  {
    name: 'anthropic-version',
    in: 'header',
    required: false,
    description: 'Версия Messages API (передаётся провайдеру Anthropic; по умолчанию 2023-06-01)',
    schema: { type: 'string' },
    example: '2023-06-01',
  },
  {
    name: 'anthropic-beta',
    in: 'header',
    required: false,
    description: 'Бета-возможности Anthropic (передаются провайдеру Anthropic как есть)',
    schema: { type: 'string' },
    example: 'claude-code-20250219',
  },
  {
    name: 'x-api-key',
    in: 'header',
    required: false,
    description: 'Ключ Conduit (или Authorization: Bearer)',
    schema: { type: 'string' },
    example: 'cdt-0123456789abcdef',
  },
];

/** POST /v1/messages. */
export const MESSAGES_OPERATION = {
  tags: [V1_TAG.name],
  operationId: 'v1.messages',
  summary: 'Messages API Anthropic: ответ модели целиком или потоком событий',
  description:
    'Тело как у Anthropic (max_tokens обязателен). Провайдер с протоколом anthropic получает тело клиента как есть, провайдер openai — переведённый запрос ' +
    '(system, блоки text/image, tool_use/tool_result, tools, tool_choice, stop_sequences); ответ — в формате Anthropic, с потоком событий Anthropic при stream: true. ' +
    'Оплата, лимиты, Idempotency-Key и переключение провайдеров — как у /v1/chat/completions; в usage input_tokens без токенов кэша (cache_read_input_tokens, ' +
    'cache_creation_input_tokens отдельно), оплачиваются все токены запроса. Ошибки — в формате Anthropic (billing_error 402 при нехватке баланса).',
  parameters: VERSION_HEADERS,
  requestBody: {
    required: true,
    content: json(
      {
        type: 'object',
        required: ['model', 'messages', 'max_tokens'],
        properties: { ...PROMPT_FIELDS, max_tokens: { type: 'integer', minimum: 1 }, stream: { type: 'boolean' } },
        additionalProperties: true,
      },
      EXAMPLE,
    ),
  },
  responses: {
    '200': {
      description: 'Ответ модели; при stream: true — события text/event-stream Anthropic',
      headers: { ...HEADERS, 'x-conduit-cost': { description: 'Сколько списано (ответ без потока)', schema: { type: 'string' } } },
      content: {
        ...json({ type: 'object', additionalProperties: true }, ANSWER_EXAMPLE),
        'text/event-stream': { schema: { type: 'string' }, example: STREAM_EXAMPLE },
      },
    },
    ...ERRORS,
  },
};

/** POST /v1/messages/count_tokens. */
export const COUNT_TOKENS_OPERATION = {
  tags: [V1_TAG.name],
  operationId: 'v1.messagesCountTokens',
  summary: 'Оценка числа токенов запроса Messages API (бесплатно)',
  description: 'Токены запроса по токенизатору Conduit (o200k): оценка, у провайдера число может отличаться. Ничего не списывается.',
  parameters: VERSION_HEADERS,
  requestBody: {
    required: true,
    content: json(
      { type: 'object', required: ['model', 'messages'], properties: PROMPT_FIELDS, additionalProperties: true },
      { model: EXAMPLE.model, messages: EXAMPLE.messages },
    ),
  },
  responses: {
    '200': {
      description: 'Оценка',
      headers: HEADERS,
      content: json({ type: 'object', properties: { input_tokens: { type: 'integer' } }, required: ['input_tokens'] }, { input_tokens: 9 }),
    },
    '400': ERRORS['400'],
    '401': ERRORS['401'],
    '403': ERRORS['403'],
    '413': ERRORS['413'],
    '429': ERRORS['429'],
  },
};
