// The OpenAI-compatible /v1 routes' OpenAPI operations, for their definitions (*.route.ts beside this file).
// They are raw handlers (not tRPC procedures: the hot path has no router in front of it), so they are described by hand: the bodies by the
// fields Conduit reads or checks (everything else passes to the upstream as sent), the answers as OpenAI
// shapes them, the error object with OpenAI's param and code, and the headers the SDKs read.
import { errorCodes } from '../http/errors';
import { errorMessages } from '../http/messages';
import { keysMessages } from '../keys';
import { gatewayMessages } from './texts';
import { STATUS_ERRORS, type ErrorStatus } from '../openapi/errors';

const OPENAI_ERROR = {
  type: 'object',
  description: 'Ошибка /v1 в формате OpenAI: сообщение на русском, машинный тип, поле запроса и код',
  properties: {
    error: {
      type: 'object',
      properties: {
        message: { type: 'string', description: 'Сообщение для человека (на русском)' },
        type: { type: 'string', description: 'Машинный тип ошибки (таблица decisions.md) или тип, который вернул сервис модели' },
        param: { type: ['string', 'null'], description: 'Поле запроса, которое не прошло проверку, или null' },
        code: { type: ['string', 'null'], description: 'Стабильный машинный код (например invalid_api_key) или null' },
      },
      required: ['message', 'type', 'param', 'code'],
    },
  },
  required: ['error'],
} as const;

const header = (description: string, schema: Record<string, unknown>, example: unknown) => ({ description, schema, example });

const COMMON_HEADERS = {
  'x-request-id': header('Идентификатор запроса (тот же в журнале сервера)', { type: 'string' }, 'req_6f1c2b7e9a'),
  'openai-processing-ms': header('Сколько миллисекунд прошло до заголовков ответа', { type: 'integer' }, 412),
  'x-ratelimit-limit-requests': header('Самый тесный из лимитов запросов ключа и аккаунта (rpm или rpd); 2147483647 — лимита нет', { type: 'integer' }, 60),
  'x-ratelimit-remaining-requests': header('Сколько запросов ещё можно в окне этого лимита', { type: 'integer' }, 59),
  'x-ratelimit-reset-requests': header('Когда окно этого лимита начнётся заново, например 6s или 7h12m0s; 0ms — лимита нет', { type: 'string' }, '6s'),
  'x-ratelimit-limit-tokens': header('Самый тесный из лимитов токенов в минуту (tpm) ключа и аккаунта; 2147483647 — лимита нет', { type: 'integer' }, 100000),
  'x-ratelimit-remaining-tokens': header('Сколько токенов ещё можно в этой минуте (токены ответа засчитываются при его завершении)', { type: 'integer' }, 98500),
  'x-ratelimit-reset-tokens': header('Когда минута лимита токенов начнётся заново; 0ms — лимита нет', { type: 'string' }, '6s'),
};

const ERROR_HEADERS = {
  ...COMMON_HEADERS,
  'x-should-retry': header(
    'true — повтор может помочь (429, 502, 503, 504); false — нет (400, 401, 402, 403, 404, 409, 413)',
    { type: 'string', enum: ['true', 'false'] },
    'false',
  ),
  'retry-after': header('Через сколько секунд повторить (где известно)', { type: 'integer' }, 5),
};

/** The code a /v1 answer of this status carries, as the renderer (http/errors.ts) sets it. */
const V1_CODES: Partial<Record<ErrorStatus, { message: string; param?: string; code: string | null }>> = {
  400: { message: `${errorMessages.validationFailed}: messages: обязательное поле`, param: 'messages', code: null },
  401: { message: keysMessages.invalidApiKey, code: 'invalid_api_key' },
  402: { message: errorMessages.insufficientBalance, code: 'insufficient_quota' },
  403: { message: keysMessages.revokedApiKey, code: 'api_key_revoked' },
  404: { message: errorMessages.notFound, code: 'unknown_url' },
  409: { message: gatewayMessages.idempotencyInFlight('req_6f1c2b7e9a'), code: 'idempotency_in_progress' },
  413: { message: errorMessages.payloadTooLarge, code: 'payload_too_large' },
  429: { message: gatewayMessages.rateLimited({ name: 'rpm', scope: 'key' }, 60, 35), code: 'rpm_exceeded' },
  500: { message: errorMessages.internal, code: 'internal_error' },
  502: { message: errorMessages.upstreamError, code: 'upstream_error' },
  503: { message: errorMessages.serviceUnavailable, code: 'service_unavailable' },
  504: { message: errorMessages.upstreamTimeout, code: 'upstream_timeout' },
};

const errorResponse = (status: ErrorStatus, description: string) => {
  const example = V1_CODES[status]!;
  return {
    description,
    headers: ERROR_HEADERS,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/OpenAiError' },
        example: { error: { message: example.message, type: STATUS_ERRORS[status].type, param: example.param ?? null, code: example.code } },
      },
    },
  };
};

/** The errors of a billed call: checked, reserved, forwarded. */
const BILLED_ERRORS = {
  '400': errorResponse(400, 'Некорректный запрос (поле названо в param); ответ 4xx сервиса модели передаётся со своим статусом и сообщением'),
  '401': errorResponse(401, 'Нет ключа, ключ неверный или истёк'),
  '402': errorResponse(402, 'Баланса (или лимита расходов ключа) не хватает на запрос'),
  '403': errorResponse(403, 'Ключ отозван, учётная запись заблокирована или модель недоступна в группе цен учётной записи (code: model_not_allowed)'),
  '404': errorResponse(404, 'Сервис модели не знает модель (его ответ передан как есть, например code: model_not_found)'),
  '409': errorResponse(409, 'Запрос с этим Idempotency-Key ещё выполняется или был потоковым'),
  '413': errorResponse(413, 'Тело запроса больше BODY_LIMIT_BYTES'),
  '429': errorResponse(429, 'Превышен лимит запросов ключа или одновременных запросов с адреса'),
  '500': errorResponse(500, 'Внутренняя ошибка сервера'),
  '502': errorResponse(502, 'Сервис модели не ответил как следует'),
  '503': errorResponse(503, 'База данных или учёт баланса временно недоступны'),
  '504': errorResponse(504, 'Сервис модели не ответил вовремя'),
};

/**
 * Error answers by status: each status with what it means on this route, or undefined for what it means
 * on a billed call. (Statuses are integer keys: JSON lists them in ascending order.)
 */
const v1Errors = (entries: Partial<Record<ErrorStatus, string | undefined>>) =>
  Object.fromEntries(
    Object.entries(entries).map(([key, text]) => {
      const status = Number(key) as ErrorStatus;
      return [key, text === undefined ? BILLED_ERRORS[key as keyof typeof BILLED_ERRORS] : errorResponse(status, text)];
    }),
  );

/** GET and DELETE of a stored response: the key's errors and the model service's, no body, no billing. */
const STORED_RESPONSE_ERRORS = v1Errors({
  401: undefined,
  403: undefined,
  404: 'Нет такого ответа у этого пользователя',
  429: undefined,
  500: undefined,
  502: undefined,
  503: undefined,
  504: undefined,
});

/** The catalog's errors (no credential, no body); `unavailable` says what 502 means on the route. */
const catalogErrors = (unavailable: string) => v1Errors({ 429: 'Слишком много одновременных запросов с адреса', 500: undefined, 502: unavailable, 503: undefined });

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Повтор с тем же ключом и телом в течение 24 ч получает сохранённый ответ без повторного списания',
  schema: { type: 'string', maxLength: 255 },
  example: 'order-2026-01-31-0001',
};

const MODEL = { type: 'string', description: 'Модель в виде <владелец>/<модель>', example: 'openai/gpt-4o-mini' };

const COST = {
  type: 'number',
  description: 'Сколько списано с баланса за этот запрос, в валюте баланса (BALANCE_CURRENCY)',
};

const CHAT_USAGE = {
  type: 'object',
  description: 'Токены и цена запроса',
  properties: {
    prompt_tokens: { type: 'integer', description: 'Токены запроса' },
    completion_tokens: { type: 'integer', description: 'Токены ответа' },
    total_tokens: { type: 'integer', description: 'Всего токенов' },
    cost: COST,
  },
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
};

const CHAT_COMPLETION = {
  type: 'object',
  description: 'Ответ модели в формате OpenAI chat.completion',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'chat.completion' },
    created: { type: 'integer', description: 'Время ответа, секунды Unix' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            properties: { role: { type: 'string', const: 'assistant' }, content: { type: ['string', 'null'] } },
            additionalProperties: true,
          },
          finish_reason: { type: ['string', 'null'] },
        },
        additionalProperties: true,
      },
    },
    usage: CHAT_USAGE,
  },
  additionalProperties: true,
};

const CHAT_EXAMPLE = {
  id: 'chatcmpl-9f1c2b7e',
  object: 'chat.completion',
  created: 1769860800,
  model: 'openai/gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Здравствуйте! Чем помочь?' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16, cost: 0.000002 },
};

const CHAT_STREAM_EXAMPLE =
  'data: {"id":"chatcmpl-9f1c2b7e","object":"chat.completion.chunk","created":1769860800,"model":"openai/gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Здравствуйте"},"finish_reason":null}]}\n\n' +
  'data: {"id":"chatcmpl-9f1c2b7e","object":"chat.completion.chunk","created":1769860800,"model":"openai/gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":7,"total_tokens":16,"cost":0.000002}}\n\n' +
  'data: [DONE]\n\n';

const EMBEDDINGS = {
  type: 'object',
  description: 'Векторы в формате OpenAI',
  required: ['object', 'data', 'model', 'usage'],
  properties: {
    object: { type: 'string', const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          object: { type: 'string', const: 'embedding' },
          index: { type: 'integer' },
          embedding: {
            oneOf: [
              { type: 'array', items: { type: 'number' } },
              { type: 'string', description: 'Вектор в base64 (при encoding_format: base64)' },
            ],
          },
        },
      },
    },
    model: { type: 'string' },
    usage: { type: 'object', properties: { prompt_tokens: { type: 'integer' }, total_tokens: { type: 'integer' }, cost: COST } },
  },
  additionalProperties: true,
};

const RESPONSE_OBJECT = {
  type: 'object',
  description: 'Объект response в формате OpenAI Responses API',
  required: ['id', 'object', 'status'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'response' },
    created_at: { type: 'integer' },
    status: { type: 'string', description: 'Состояние ответа: completed, incomplete, failed…' },
    model: { type: 'string' },
    output: { type: 'array', items: { type: 'object', additionalProperties: true } },
    usage: {
      type: 'object',
      properties: { input_tokens: { type: 'integer' }, output_tokens: { type: 'integer' }, total_tokens: { type: 'integer' }, cost: COST },
    },
  },
  additionalProperties: true,
};

const RESPONSE_EXAMPLE = {
  id: 'resp_6f1c2b7e9a',
  object: 'response',
  created_at: 1769860800,
  status: 'completed',
  model: 'openai/gpt-4o-mini',
  output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Здравствуйте!' }] }],
  usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13, cost: 0.000002 },
};

const MODEL_OBJECT = {
  type: 'object',
  description: 'Модель каталога в формате OpenAI с ценами Conduit',
  required: ['id', 'object', 'created', 'owned_by'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'model' },
    created: { type: 'integer', description: 'Секунды Unix' },
    owned_by: { type: 'string' },
    pricing: {
      type: 'object',
      description: 'Цена за один токен в валюте баланса, десятичной строкой',
      properties: { prompt: { type: 'string' }, completion: { type: 'string' } },
      required: ['prompt', 'completion'],
    },
  },
  additionalProperties: true,
};

const MODEL_EXAMPLE = {
  id: 'openai/gpt-4o-mini',
  object: 'model',
  created: 1721260800,
  owned_by: 'openai',
  pricing: { prompt: '0.000000125', completion: '0.000000125' },
};

const json = (schema: Record<string, unknown>, example: unknown) => ({ 'application/json': { schema, example } });

const ok = (description: string, content: Record<string, unknown>, headers: Record<string, unknown> = COMMON_HEADERS) => ({
  description,
  headers,
  content,
});

const BILLED_HEADERS = {
  ...COMMON_HEADERS,
  'x-conduit-cost': header('Сколько списано с баланса за этот запрос (без потока), в валюте баланса', { type: 'string' }, '0.000002'),
};

export const V1_TAG = {
  name: 'v1',
  description: 'OpenAI-совместимый шлюз к моделям: API-ключ cdt-… в Authorization: Bearer; подходит официальный SDK openai',
};

const tags = [V1_TAG.name];

type BilledCall = {
  operationId: string;
  summary: string;
  description: string;
  /** The request body's media (json(schema, example)). */
  body: Record<string, unknown>;
  /** What the 200 answer is, and its media. */
  answer: string;
  content: Record<string, unknown>;
};

/** A billed call (POST): Idempotency-Key, a JSON body, an answer with the cost header. */
const billedCall = (call: BilledCall) => ({
  tags,
  operationId: call.operationId,
  summary: call.summary,
  description: call.description,
  parameters: [IDEMPOTENCY_KEY],
  requestBody: { required: true, content: call.body },
  responses: { '200': ok(call.answer, call.content, BILLED_HEADERS), ...BILLED_ERRORS },
});

/** The schemas the operations refer to, for the document's components. */
export const V1_SCHEMAS = { OpenAiError: OPENAI_ERROR };

/** The response cache's request header and its verdict (gateway/response-cache). */
const RESPONSE_CACHE_PARAM = {
  name: 'x-conduit-cache',
  in: 'header',
  required: false,
  description:
    'on — ответить из кэша ответов, если такой же запрос (без stream, temperature 0, n = 1) уже был в пределах CACHE_TTL_SECONDS; ' +
    'off — не брать из кэша, даже если он включён у ключа. Ответ из кэша стоит CACHE_HIT_PRICE_RATIO от обычной цены',
  schema: { type: 'string', enum: ['on', 'off'] },
  example: 'on',
};

/** POST /v1/chat/completions. */
const chatCompletionsCall = billedCall({
  operationId: 'v1.chatCompletions',
  summary: 'Ответ модели (Chat Completions), целиком или потоком SSE',
  description:
    'Тело как у OpenAI: Conduit проверяет model, messages и пределы токенов, резервирует оплату на балансе и передаёт запрос сервису модели. ' +
    'При stream: true ответ идёт событиями text/event-stream по мере генерации, последним перед [DONE] — usage с ценой. ' +
    'Списывается ровно цена использованных токенов (usage.cost, заголовок x-conduit-cost для ответа без потока).',
  body: json(
    {
      type: 'object',
      required: ['model', 'messages'],
      properties: {
        model: MODEL,
        messages: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['role'],
            properties: { role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool'] }, content: {} },
            additionalProperties: true,
          },
        },
        stream: { type: 'boolean', description: 'true — ответ потоком событий SSE' },
        stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } }, additionalProperties: true },
        max_tokens: { type: 'integer', minimum: 1 },
        max_completion_tokens: { type: 'integer', minimum: 1 },
        n: { type: 'integer', minimum: 1, maximum: 128 },
        tools: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
      additionalProperties: true,
    },
    { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Привет' }] },
  ),
  answer: 'Ответ модели; при stream: true — события text/event-stream (chat.completion.chunk), затем data: [DONE]',
  content: { ...json(CHAT_COMPLETION, CHAT_EXAMPLE), 'text/event-stream': { schema: { type: 'string' }, example: CHAT_STREAM_EXAMPLE } },
});
export const CHAT_COMPLETIONS_OPERATION = {
  ...chatCompletionsCall,
  parameters: [...chatCompletionsCall.parameters, RESPONSE_CACHE_PARAM],
  responses: {
    ...chatCompletionsCall.responses,
    '200': {
      ...chatCompletionsCall.responses['200'],
      headers: {
        ...BILLED_HEADERS,
        'x-conduit-cache': header(
          'hit — ответ из кэша ответов, miss — запрос, который мог быть взят из кэша, ушёл к модели; нет заголовка — кэш не спрашивали',
          { type: 'string', enum: ['hit', 'miss'] },
          'hit',
        ),
      },
    },
  },
};

/** POST /v1/embeddings. */
export const EMBEDDINGS_OPERATION = billedCall({
  operationId: 'v1.embeddings',
  summary: 'Векторы для текста (строка, массив строк или массивы токенов)',
  description: 'Тело как у OpenAI. Оплата по токенам запроса (usage.prompt_tokens) по цене запроса модели.',
  body: json(
    {
      type: 'object',
      required: ['model', 'input'],
      properties: {
        model: MODEL,
        input: {
          oneOf: [
            { type: 'string' },
            { type: 'array', items: { type: 'string' } },
            { type: 'array', items: { type: 'integer' } },
            { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
          ],
        },
        encoding_format: { type: 'string', enum: ['float', 'base64'] },
        dimensions: { type: 'integer', minimum: 1 },
      },
      additionalProperties: true,
    },
    { model: 'openai/text-embedding-3-small', input: 'Привет' },
  ),
  answer: 'Векторы и usage (оплата по цене запроса модели)',
  content: json(EMBEDDINGS, {
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789] }],
    model: 'openai/text-embedding-3-small',
    usage: { prompt_tokens: 2, total_tokens: 2, cost: 0.00000025 },
  }),
});

/** POST /v1/responses. */
export const RESPONSES_CREATE_OPERATION = billedCall({
  operationId: 'v1.responsesCreate',
  summary: 'Responses API: ответ модели целиком или потоком событий',
  description:
    'Тело как у OpenAI Responses API. При stream: true ответ идёт событиями text/event-stream (response.output_text.delta…, response.completed; ' +
    'в usage события response.completed — цена запроса, usage.cost). ' +
    'Сохранённый ответ можно прочитать или удалить по id.',
  body: json(
    {
      type: 'object',
      required: ['model', 'input'],
      properties: {
        model: MODEL,
        input: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', additionalProperties: true } }] },
        stream: { type: 'boolean', description: 'true — ответ потоком событий SSE' },
        max_output_tokens: { type: 'integer', minimum: 1 },
      },
      additionalProperties: true,
    },
    { model: 'openai/gpt-4o-mini', input: 'Привет' },
  ),
  answer: 'Объект response или поток событий',
  content: {
    ...json(RESPONSE_OBJECT, RESPONSE_EXAMPLE),
    'text/event-stream': {
      schema: { type: 'string' },
      example:
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Здравствуйте"}\n\n' +
        'event: response.completed\ndata: {"type":"response.completed","response":{"id":"resp_6f1c2b7e9a","status":"completed"}}\n\n',
    },
  },
});

/** The path item /v1/responses/{id}'s parameter, shared by its GET and DELETE. */
export const RESPONSE_ID_PARAMETERS = [
  { name: 'id', in: 'path', required: true, description: 'id ответа из POST /v1/responses', schema: { type: 'string' }, example: 'resp_6f1c2b7e9a' },
];

/** GET /v1/responses/{id}. */
export const RESPONSES_GET_OPERATION = {
  tags,
  operationId: 'v1.responsesGet',
  summary: 'Прочитать свой ответ Responses API',
  description: 'Ответ, сохранённый сервисом модели, для владельца ключа; чужие и неизвестные id — 404.',
  responses: {
    '200': ok('Ответ, как его вернул сервис модели', json(RESPONSE_OBJECT, RESPONSE_EXAMPLE)),
    ...STORED_RESPONSE_ERRORS,
  },
};

/** DELETE /v1/responses/{id}. */
export const RESPONSES_DELETE_OPERATION = {
  tags,
  operationId: 'v1.responsesDelete',
  summary: 'Удалить свой ответ Responses API',
  description: 'Удаляет ответ у сервиса модели; чужие и неизвестные id — 404.',
  responses: {
    '200': ok(
      'Удалено',
      json(
        {
          type: 'object',
          required: ['id', 'object', 'deleted'],
          properties: { id: { type: 'string' }, object: { type: 'string', const: 'response' }, deleted: { type: 'boolean' } },
        },
        { id: 'resp_6f1c2b7e9a', object: 'response', deleted: true },
      ),
    ),
    ...STORED_RESPONSE_ERRORS,
  },
};

/** GET /v1/models. */
export const MODELS_OPERATION = {
  tags,
  operationId: 'v1.models',
  summary: 'Список моделей с ценами',
  description:
    'Каталог сервиса моделей в формате OpenAI; pricing.prompt / pricing.completion — цена за токен в валюте баланса. Авторизация не нужна: ' +
    'без неё — цены группы по умолчанию; с ключом API (или JWT панели) — цены группы цен этой учётной записи и только доступные ей модели.',
  responses: {
    '200': ok(
      'Список моделей в формате OpenAI',
      json(
        {
          type: 'object',
          required: ['object', 'data'],
          properties: { object: { type: 'string', const: 'list' }, data: { type: 'array', items: MODEL_OBJECT } },
        },
        { object: 'list', data: [MODEL_EXAMPLE] },
      ),
    ),
    ...catalogErrors('Список моделей недоступен'),
  },
};

/** The path item /v1/models/{id}'s parameter. */
export const MODEL_ID_PARAMETERS = [
  {
    name: 'id',
    in: 'path',
    required: true,
    description: 'id модели из каталога; косая черта в нём пишется как есть (openai/gpt-4o-mini)',
    schema: { type: 'string' },
    example: 'openai/gpt-4o-mini',
  },
];

/** GET /v1/models/{id} (mounted as /v1/models/*). */
export const MODELS_RETRIEVE_OPERATION = {
  tags,
  operationId: 'v1.modelsRetrieve',
  summary: 'Одна модель каталога с ценами',
  description:
    'То же, что элемент GET /v1/models (models.retrieve в SDK), с ценами группы вызывающего. Без авторизации; неизвестная или недоступная группе модель — 404 с code model_not_found.',
  responses: {
    '200': ok('Модель в формате OpenAI', json(MODEL_OBJECT, MODEL_EXAMPLE)),
    '404': {
      ...errorResponse(404, 'Такой модели нет в каталоге'),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/OpenAiError' },
          example: { error: { message: gatewayMessages.modelNotFound, type: 'not_found', param: 'model', code: errorCodes.modelNotFound } },
        },
      },
    },
    ...catalogErrors('Каталог моделей недоступен'),
  },
};

/** POST /v1/audio/transcriptions. */
export const AUDIO_TRANSCRIPTIONS_OPERATION = {
  ...billedCall({
    operationId: 'v1.audioTranscriptions',
    summary: 'Расшифровка аудио в текст (multipart, поля как у OpenAI)',
    description:
      'Тело multipart/form-data: file (до AUDIO_MAX_BYTES, по умолчанию 25 МБ; больше — 413) и model обязательны; language, prompt, temperature, ' +
      'timestamp_granularities[] передаются сервису модели как есть. response_format: json (по умолчанию), text, srt, verbose_json, vtt. ' +
      'Модель с ценой per_second оплачивается по секундам аудио, которые сообщил сервис модели (usage.seconds или duration), ' +
      'остальные — по токенам usage.input_tokens/output_tokens. Резерв до вызова — по длительности из заголовка файла (WAV, MP3, OGG, WebM), ' +
      'иначе на AUDIO_MAX_SECONDS. stream=true не поддерживается.',
    body: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: ['file', 'model'],
          properties: {
            file: { type: 'string', format: 'binary', description: 'Аудиофайл: flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav или webm' },
            model: { ...MODEL, example: 'openai/whisper-1' },
            language: { type: 'string', description: 'Язык аудио в ISO-639-1, например ru' },
            prompt: { type: 'string' },
            response_format: { type: 'string', enum: ['json', 'text', 'srt', 'verbose_json', 'vtt'], default: 'json' },
            temperature: { type: 'number', minimum: 0, maximum: 1 },
            'timestamp_granularities[]': { type: 'array', items: { type: 'string', enum: ['word', 'segment'] } },
          },
        },
        example: { file: '(аудиофайл voice.ogg)', model: 'openai/whisper-1', language: 'ru', response_format: 'json' },
      },
    },
    answer: 'Текст: JSON {text, usage} (в usage — цена, usage.cost), verbose_json с duration и segments, или text/srt/vtt как текст',
    content: {
      ...json(
        {
          type: 'object',
          required: ['text'],
          properties: { text: { type: 'string' }, usage: { type: 'object', additionalProperties: true } },
          additionalProperties: true,
        },
        { text: 'Здравствуйте, хочу записаться на стрижку.', usage: { type: 'duration', seconds: 4, cost: 0.0004 } },
      ),
      'text/plain': { schema: { type: 'string' }, example: 'Здравствуйте, хочу записаться на стрижку.\n' },
    },
  }),
};
