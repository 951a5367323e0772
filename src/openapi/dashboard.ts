// The dashboard's routes in the OpenAPI document: tRPC procedures, so trpc-to-openapi writes their paths,
// bodies and answers from the router's meta. The generator knows neither our error body nor which
// statuses a route answers, so every operation is finished here by rule: its credentials (from the
// procedure kind), the errors a route of its kind can answer (400 with input, 401/403 with a credential,
// 404 with a path parameter, 413 with a body, 429 from the per-address cap, 500 and 503 everywhere) plus
// those its meta or ROUTE_ERRORS names, a Russian description, and examples built from the schemas
// (examples.ts).
import type { AnyTRPCRouter } from '@trpc/server';
import { dashboardErrors, type ErrorStatus } from './errors';
import { exampleOf } from './examples';
import { procedureMetas } from '../trpc/meta';
import type { Credential, ProcedureMeta } from '../trpc/init';

export type Schema = Record<string, unknown>;
export type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema?: Schema; example?: unknown; description?: string }[];
  requestBody?: { content: Record<string, { schema?: Schema; example?: unknown }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Schema; example?: unknown }> }>;
};

/** The dashboard's tags, in the order the reference lists them. */
export const DASHBOARD_TAGS: { name: string; description: string }[] = [
  { name: 'auth', description: 'Регистрация, вход и подтверждение e-mail' },
  { name: 'keys', description: 'API-ключи (cdt-…) для /v1: выпуск, лимиты расходов, отзыв' },
  { name: 'account', description: 'Баланс и использование: по токену входа (JWT) или по API-ключу' },
  { name: 'billing', description: 'Пополнение баланса через ЮKassa' },
  {
    name: 'organizations',
    description:
      'Организации: свой баланс, ключи и документы, участники с ролями и приглашения по e-mail. Заголовок X-Conduit-Organization с токеном входа переключает маршруты аккаунта на организацию',
  },
  { name: 'agents', description: 'Агенты-ассистенты пользователя' },
  { name: 'social', description: 'Интеграция агента с сообществом ВКонтакте' },
  { name: 'messenger', description: 'Интеграция агента с ботом Telegram' },
  { name: 'booking', description: 'Интеграция агента-сервиса с системой бронирования YCLIENTS' },
  { name: 'commerce', description: 'Каталог, заказы и оплата агента-магазина' },
  { name: 'knowledge', description: 'База знаний агента: записи, импорт и поиск, по которым отвечает ассистент' },
  { name: 'dialogues', description: 'Диалоги агента с клиентами: переписка, перехват оператором и возврат ассистенту' },
  {
    name: 'broadcasts',
    description: 'Рассылки клиентам сообщества ВКонтакте, разрешившим сообщения: предпросмотр, отправка через очередь, доставлено и не доставлено',
  },
  { name: 'admin', description: 'Администрирование: пользователи, начисления, цены, статистика (роль admin)' },
];

/** The security scheme (document.ts) each credential kind stands for. */
const SCHEME_OF: Record<Credential, 'Jwt' | 'ApiKey'> = { jwt: 'Jwt', apiKey: 'ApiKey' };

const CREDENTIAL_TEXT = (credentials: Credential[]) =>
  credentials.length === 0
    ? 'Без авторизации.'
    : credentials.length === 2
      ? 'Авторизация: токен входа (JWT) или API-ключ cdt-… в Authorization: Bearer.'
      : 'Авторизация: токен входа (JWT) в Authorization: Bearer.';

const GENERATOR_SUCCESS = 'Successful response';

type RouteErrors = Partial<Record<ErrorStatus, string>>;

const VK_DOWN = 'ВКонтакте недоступен или отклонил запрос';
const YCLIENTS: RouteErrors = { 429: 'YCLIENTS просит повторить позже (Retry-After)', 502: 'YCLIENTS недоступен или отказал в доступе' };

/**
 * The statuses a route answers beyond those of its kind, with what they mean there. A procedure may name
 * its own in meta.errors instead; both are merged.
 */
const ROUTE_ERRORS: Record<string, RouteErrors> = {
  'POST /api/auth/register': {
    409: 'Пользователь с таким e-mail уже зарегистрирован',
    429: 'Слишком много регистраций с адреса клиента',
  },
  'POST /api/auth/login': {
    401: 'Неверный e-mail или пароль',
    403: 'Учётная запись заблокирована',
    429: 'Слишком много неудачных попыток входа (Retry-After)',
  },
  'POST /api/auth/resend-verification': {
    409: 'E-mail уже подтверждён',
    429: 'Слишком много писем подтверждения (Retry-After)',
    503: 'Почтовый сервер недоступен или база данных временно недоступна',
  },
  'POST /api/billing/topups': {
    400: 'Сумма вне пределов или достигнут лимит неоплаченных пополнений (TOPUP_MAX_PENDING)',
    502: 'ЮKassa недоступна или отклонила платёж: пополнение не создано',
  },
  'POST /api/admin/users/{id}/credit': { 409: 'Эта ссылка операции (reference) уже использована для другого начисления' },
  'POST /api/admin/prices/import/preview': { 502: 'Каталог сервиса моделей недоступен' },
  'POST /api/admin/prices/import': { 502: 'Каталог сервиса моделей недоступен' },
  'POST /api/v1/social/check-connection': { 404: 'Нет агента с таким agentId', 502: VK_DOWN },
  'GET /api/v1/social/{agentId}/confirmation-code': { 502: VK_DOWN },
  'POST /api/v1/social/{agentId}/webhook': { 502: VK_DOWN },
  'PUT /api/v1/messenger/{agentId}/settings': { 502: 'Telegram недоступен или не принял адрес вебхука' },
  'GET /api/v1/messenger/{agentId}/check-channel-admin': { 502: 'Telegram недоступен' },
  'PUT /api/v1/booking/{agentId}/settings': YCLIENTS,
  'GET /api/v1/booking/{agentId}/specialists': YCLIENTS,
  'GET /api/v1/booking/{agentId}/services': YCLIENTS,
  'GET /api/v1/booking/{agentId}/slots': YCLIENTS,
  'POST /api/v1/booking/{agentId}/appointments': { ...YCLIENTS, 409: 'Это время уже занято или недоступно для записи' },
};

function finishOperation(op: Operation, meta: ProcedureMeta, method: string, path: string, components: Record<string, Schema>): void {
  const credentials = meta.credentials ?? ['jwt'];
  op.security = credentials.map((c) => ({ [SCHEME_OF[c]]: [] }));
  const isAdmin = meta.openapi?.tags?.includes('admin') ?? false;
  op.description ??= [
    `${op.summary ?? ''}.`.replace(/\.\.$/, '.'),
    CREDENTIAL_TEXT(credentials),
    isAdmin ? 'Только для администраторов (роль admin), остальным — 403.' : '',
  ]
    .filter(Boolean)
    .join(' ');

  const success = Object.keys(op.responses).find((s) => s.startsWith('2'));
  const hasInput = '400' in op.responses || op.requestBody !== undefined || (op.parameters?.length ?? 0) > 0;
  const withBody = ['post', 'put', 'patch'].includes(method);
  for (const status of Object.keys(op.responses)) if (!status.startsWith('2')) delete op.responses[status];

  const statuses: Partial<Record<ErrorStatus, string | undefined>> = {};
  if (hasInput || withBody) statuses[400] = undefined;
  if (credentials.length > 0) {
    statuses[401] = undefined;
    statuses[403] = isAdmin ? 'Нужна роль admin, или учётная запись заблокирована' : undefined;
  }
  if (path.includes('{')) statuses[404] = 'Не найдено: нет такого ресурса у этого пользователя';
  if (withBody) statuses[413] = undefined;
  statuses[429] = undefined;
  statuses[500] = undefined;
  statuses[503] = undefined;
  Object.assign(statuses, ROUTE_ERRORS[`${method.toUpperCase()} ${path}`] ?? {}, meta.errors ?? {});
  Object.assign(op.responses, dashboardErrors(statuses));

  if (success) {
    const answer = op.responses[success]!;
    if (!answer.description || answer.description === GENERATOR_SUCCESS) answer.description = 'Успешный ответ';
    for (const media of Object.values(answer.content ?? {})) {
      // A procedure with no output (void) answers with no JSON worth describing: say it is empty.
      if (media.schema && Object.keys(media.schema).length === 0) media.schema = { type: 'object', description: 'Пустой ответ' };
      media.example ??= exampleOf(media.schema ?? {}, components);
    }
  }
  for (const media of Object.values(op.requestBody?.content ?? {})) media.example ??= exampleOf(media.schema ?? {}, components);
  for (const parameter of op.parameters ?? []) parameter.example ??= exampleOf(parameter.schema ?? {}, components, parameter.name);
}

/**
 * Finishes every operation the generator wrote for `router`'s procedures; `schemas` are the document's
 * component schemas (examples resolve their $refs).
 */
export function finishDashboardOperations(router: AnyTRPCRouter, paths: Record<string, Record<string, Operation>>, schemas: Record<string, Schema>): void {
  const unmatched = new Set(Object.keys(ROUTE_ERRORS));
  for (const { meta } of procedureMetas(router)) {
    const openapi = meta?.openapi;
    if (!meta || !openapi || openapi.enabled === false) continue;
    const path = openapi.path.replace(/:(\w+)/g, '{$1}');
    const method = openapi.method.toLowerCase();
    const op = paths[path]?.[method];
    if (!op) continue;
    // Creations answer 201; the generator only knows 200.
    if (meta.successStatus && meta.successStatus !== 200 && op.responses['200']) {
      op.responses[String(meta.successStatus)] = op.responses['200'];
      delete op.responses['200'];
    }
    unmatched.delete(`${method.toUpperCase()} ${path}`);
    finishOperation(op, meta, method, path, schemas);
  }
  if (unmatched.size > 0) throw new Error(`ROUTE_ERRORS names routes the router does not have: ${[...unmatched].join(', ')}`);
}
