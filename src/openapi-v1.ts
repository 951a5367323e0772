// The OpenAI-compatible /v1 routes in the OpenAPI document. They are raw handlers (not tRPC procedures:
// the hot path has no router in front of it), so they are described here by hand: the bodies by the
// fields Conduit reads or checks (everything else passes to the upstream as sent), the answers as OpenAI
// shapes them, the error object with OpenAI's param and code, and the headers the SDKs read.

const OPENAI_ERROR = {
  type: 'object',
  description: 'Ошибка /v1 в формате OpenAI: сообщение на русском, машинный тип, поле запроса и код',
  properties: {
    error: {
      type: 'object',
      properties: {
        message: { type: 'string', description: 'Сообщение для человека (на русском)' },
        type: { type: 'string', description: 'Машинный тип ошибки (таблица decisions.md)' },
        param: { type: ['string', 'null'], description: 'Поле запроса, которое не прошло проверку, или null' },
        code: { type: ['string', 'null'], description: 'Стабильный машинный код (например invalid_api_key) или null' },
      },
      required: ['message', 'type', 'param', 'code'],
    },
  },
  required: ['error'],
} as const;

const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ description, schema });

const COMMON_HEADERS = {
  'x-request-id': header('Идентификатор запроса (тот же в журнале сервера)'),
  'openai-processing-ms': header('Сколько миллисекунд прошло до заголовков ответа', { type: 'integer' }),
  'x-ratelimit-limit-requests': header('Лимит запросов ключа в минуту (при RATE_LIMIT_PER_MINUTE > 0)', { type: 'integer' }),
  'x-ratelimit-remaining-requests': header('Сколько запросов ещё можно в текущем окне', { type: 'integer' }),
  'x-ratelimit-reset-requests': header('Когда окно начнётся заново, например 6s'),
};

const ERROR_HEADERS = {
  ...COMMON_HEADERS,
  'x-should-retry': header('true — повтор может помочь (429, 502, 503, 504); false — нет (400, 401, 402, 403, 404, 413)', {
    type: 'string',
    enum: ['true', 'false'],
  }),
  'retry-after': header('Через сколько секунд повторить (где известно)', { type: 'integer' }),
};

const errorResponse = (description: string) => ({
  description,
  headers: ERROR_HEADERS,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/OpenAiError' } } },
});

const ERRORS = {
  '400': errorResponse('Некорректный запрос (поле названо в param)'),
  '401': errorResponse('Нет ключа, ключ неверный или истёк'),
  '402': errorResponse('Баланса (или лимита ключа) не хватает на запрос'),
  '403': errorResponse('Ключ отозван или учётная запись заблокирована'),
  '409': errorResponse('Запрос с этим Idempotency-Key ещё выполняется или был потоковым'),
  '413': errorResponse('Тело запроса больше BODY_LIMIT_BYTES'),
  '429': errorResponse('Превышен лимит запросов ключа'),
  '502': errorResponse('Сервис модели не ответил как следует'),
  '503': errorResponse('База данных временно недоступна'),
  '504': errorResponse('Сервис модели не ответил вовремя'),
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Повтор с тем же ключом и телом в течение 24 ч получает сохранённый ответ без повторного списания',
  schema: { type: 'string', maxLength: 255 },
};

const MODEL = { type: 'string', description: 'Модель в виде <владелец>/<модель>', example: 'openai/gpt-4o-mini' };

const USAGE_WITH_COST = {
  type: 'object',
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
  },
};

const json = (schema: Record<string, unknown>, example?: unknown) => ({
  'application/json': { schema, ...(example !== undefined ? { example } : {}) },
});

const ok = (description: string, content: Record<string, unknown>) => ({ description, headers: COMMON_HEADERS, content });

export const V1_TAG = { name: 'v1', description: 'OpenAI-совместимый шлюз к моделям: ключ API (cdt-…) в Authorization: Bearer' };

/** The /v1 paths, their shared schemas and the API key security scheme, to merge into the document. */
export function v1OpenApi() {
  const security = [{ ApiKey: [] }];
  return {
    securitySchemes: {
      ApiKey: { type: 'http', scheme: 'bearer', description: 'API-ключ Conduit (cdt-…), выданный в панели' },
    },
    schemas: { OpenAiError: OPENAI_ERROR },
    paths: {
      '/v1/chat/completions': {
        post: {
          tags: ['v1'],
          operationId: 'v1.chatCompletions',
          summary: 'Ответ модели (Chat Completions), целиком или потоком SSE',
          security,
          parameters: [IDEMPOTENCY_KEY],
          requestBody: {
            required: true,
            content: json(
              {
                type: 'object',
                required: ['model', 'messages'],
                properties: {
                  model: MODEL,
                  messages: { type: 'array', minItems: 1, items: { type: 'object' } },
                  stream: { type: 'boolean' },
                  max_tokens: { type: 'integer', minimum: 1 },
                  max_completion_tokens: { type: 'integer', minimum: 1 },
                  n: { type: 'integer', minimum: 1, maximum: 128 },
                  tools: { type: 'array', items: { type: 'object' } },
                },
                additionalProperties: true,
              },
              { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Привет' }] },
            ),
          },
          responses: {
            '200': ok('Ответ модели; при stream: true — события text/event-stream', {
              ...json({ type: 'object', properties: { id: { type: 'string' }, choices: { type: 'array', items: { type: 'object' } }, usage: USAGE_WITH_COST } }),
              'text/event-stream': { schema: { type: 'string' } },
            }),
            ...ERRORS,
          },
        },
      },
      '/v1/embeddings': {
        post: {
          tags: ['v1'],
          operationId: 'v1.embeddings',
          summary: 'Векторы для текста (строка, массив строк или массивы токенов)',
          security,
          parameters: [IDEMPOTENCY_KEY],
          requestBody: {
            required: true,
            content: json(
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
          },
          responses: {
            '200': ok('Векторы и usage.prompt_tokens (оплата по цене запроса модели)', json({ type: 'object' })),
            ...ERRORS,
          },
        },
      },
      '/v1/responses': {
        post: {
          tags: ['v1'],
          operationId: 'v1.responsesCreate',
          summary: 'Responses API: ответ модели целиком или потоком событий',
          security,
          parameters: [IDEMPOTENCY_KEY],
          requestBody: {
            required: true,
            content: json(
              {
                type: 'object',
                required: ['model', 'input'],
                properties: {
                  model: MODEL,
                  input: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
                  stream: { type: 'boolean' },
                  max_output_tokens: { type: 'integer', minimum: 1 },
                },
                additionalProperties: true,
              },
              { model: 'openai/gpt-4o-mini', input: 'Привет' },
            ),
          },
          responses: {
            '200': ok('Объект response (usage.input_tokens / output_tokens) или поток событий', {
              ...json({ type: 'object' }),
              'text/event-stream': { schema: { type: 'string' } },
            }),
            ...ERRORS,
          },
        },
      },
      '/v1/responses/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          tags: ['v1'],
          operationId: 'v1.responsesGet',
          summary: 'Прочитать свой ответ Responses API (чужие и неизвестные id — 404)',
          security,
          responses: { '200': ok('Ответ, как его вернул сервис модели', json({ type: 'object' })), '404': errorResponse('Нет такого ответа у этого пользователя'), ...ERRORS },
        },
        delete: {
          tags: ['v1'],
          operationId: 'v1.responsesDelete',
          summary: 'Удалить свой ответ Responses API',
          security,
          responses: { '200': ok('Удалено', json({ type: 'object' })), '404': errorResponse('Нет такого ответа у этого пользователя'), ...ERRORS },
        },
      },
      '/v1/models': {
        get: {
          tags: ['v1'],
          operationId: 'v1.models',
          summary: 'Список моделей с ценами (pricing.prompt / pricing.completion за токен, строками)',
          security: [],
          responses: {
            '200': ok('Список моделей в формате OpenAI', json({ type: 'object', properties: { object: { type: 'string' }, data: { type: 'array', items: { type: 'object' } } } })),
            '502': errorResponse('Список моделей недоступен'),
          },
        },
      },
    },
  };
}
