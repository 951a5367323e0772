// The world both bad-input files sweep: the fakes, the app, an owner, an admin and the resources their
// routes act on, plus the request, judging and snapshot helpers. Each file starts its own world.
import { afterAll, beforeAll, expect } from 'bun:test';
import { randomUUID } from 'node:crypto';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { startFakeYclients, type FakeYclients } from '../fakes/yclients';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { createApiKey, grantAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { BOT_TOKEN, freePort, messengerEnv, OPERATOR, seedTelegram } from '../helpers/messenger';
import { CODE, GROUP, SECRET, TOKEN } from '../helpers/social';
import { fieldLabels, scopedFieldLabels } from '../../src/http/field-labels';

export const BODY_LIMIT = 4096;
/** Any answer slower than this is a hang. */
export const REQUEST_TIMEOUT_MS = 5000;
export const PARTNER = 'partner-token-5f2a9c';
export const COMPANY = 4564;
export const MARIA = 1507;
export const HAIRCUT = 90211;
export const DAY = '2026-12-01';
export const TEMPLATE = 'https://pay.example.ru/checkout?order={orderNumber}';
export const NUL = 'a\u0000b';
export const LONE_SURROGATE = 'a\ud800b';

export let vk: FakeVk;
export let telegram: FakeTelegram;
export let yc: FakeYclients;
export let upstream: FakeUpstream;
export let yookassa: FakeYookassa;
export let app: TestApp;
export let adminEmail: string;

export type User = Awaited<ReturnType<typeof registerUser>>;
export let owner: User;
export let admin: User;
/** The account the admin routes act on, so the owner is never blocked by the sweep. */
export let victim: User;
/** Spends through /v1 with its own key, so the owner's keys (and their lastUsedAt) stay untouched. */
export let gatewayUser: User;
export let gatewayKey: string;
export let agents: { creator: string; service: string; shop: string };
export let keyId: string;
export let productId: string;
export let providerId: string;
export let paymentToken: string;
export let telegramSecret: string;

export interface Answer {
  status: number;
  text: string;
  body: any;
  contentType: string;
}

/** One request with a deadline: a hang is an answer too (an Error). */
export async function send(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: BodyInit; headers?: Record<string, string> } = {},
): Promise<Answer | Error> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined;
  if (options.raw !== undefined) body = options.raw;
  // `body: null` is sent as JSON null: presence, not value, decides.
  else if ('body' in options) body = JSON.stringify(options.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(app.url + path, { method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: the judge says whether that was allowed.
    }
    return { status: res.status, text, body: parsed, contentType: res.headers.get('content-type') ?? '' };
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** A body sent in small chunks with no content-length, as a proxy or a slow client streams it. */
export function chunked(text: string, chunkBytes = 1000): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunkBytes));
      offset += chunkBytes;
    },
  });
}

export const oversizedJson = (bytes = BODY_LIMIT + 1000) => JSON.stringify({ padding: 'x'.repeat(bytes) });
export const cursorOf = (at: string, id: string | number) => Buffer.from(`${at}|${id}`).toString('base64url');

export interface Expectation {
  status?: number;
  /** The error message must name this field by its Russian label, never by its English key (issue 16, point 4). */
  names?: string;
}

/** The labels a field may be shown by: its own, or a form's own where one key means another field there. */
export function labelsOf(field: string): string[] {
  return [fieldLabels[field], ...Object.values(scopedFieldLabels).map((scoped) => scoped[field])].filter((l): l is string => Boolean(l));
}

/**
 * Why a message fails to name `field` (a key, or a path such as `products.0.title`) as a person reads
 * it, or null when it does: each key of the path by its label, none by its English key.
 */
export function namingProblem(message: string, field: string): string | null {
  for (const key of field.split('.').filter((part) => !/^\d+$/.test(part))) {
    const labels = labelsOf(key);
    if (labels.length === 0) return `${key} has no Russian label in src/http/field-labels.ts`;
    if (!labels.some((label) => message.includes(label))) return `the message does not name ${key} as «${labels.join('» or «')}»`;
    if (new RegExp(`(^|[^A-Za-z])${key}([^A-Za-z]|$)`).test(message)) return `the message names ${key} by its English key`;
  }
  return null;
}

/**
 * Collects what misbehaved instead of stopping at the first: a sweep's failure should list every finding.
 * Any answer: no 5xx, no hang; an error answer is JSON {error:{message,type}}.
 */
export function createJudge() {
  const problems: string[] = [];
  let requests = 0;
  return {
    problems,
    get requests() {
      return requests;
    },
    check(what: string, res: Answer | Error, expected: Expectation = {}) {
      requests += 1;
      if (res instanceof Error) {
        problems.push(`${what}: no answer within ${REQUEST_TIMEOUT_MS} ms (${res.message})`);
        return;
      }
      const brief = `${res.status} ${res.text.slice(0, 240)}`;
      if (res.status >= 500) {
        problems.push(`${what}: ${brief}`);
        return;
      }
      if (res.status >= 400) {
        const error = res.body?.error;
        if (!res.contentType.includes('application/json') || typeof error?.message !== 'string' || typeof error?.type !== 'string') {
          problems.push(`${what}: error not in the {error:{message,type}} shape: ${brief}`);
          return;
        }
      }
      if (expected.status !== undefined && res.status !== expected.status) {
        problems.push(`${what}: expected ${expected.status}, got ${brief}`);
        return;
      }
      const naming = expected.names !== undefined ? namingProblem(String(res.body?.error?.message ?? ''), expected.names) : null;
      if (naming) problems.push(`${what}: ${naming}: ${brief}`);
    },
  };
}

/** Runs the requests a few at a time: fast enough for ~2,000 requests, gentle enough for PGlite. */
export async function inParallel<T>(items: T[], run: (item: T) => Promise<void>, width = 8): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/** Starts the fakes and the app and sets up the accounts, agents and settings the sweeps act on. */
export function useBadInputWorld(): void {
  beforeAll(async () => {
    [vk, telegram, yc, upstream, yookassa] = await Promise.all([startFakeVk(), startFakeTelegram(), startFakeYclients(), startFakeUpstream(), startFakeYookassa()]);
    yookassa.addShop('506070', 'test_sweep-secret-key');
    seedTelegram(telegram);
    vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
    yc.addCompany({
      id: COMPANY,
      partnerToken: PARTNER,
      login: 'irina@example.ru',
      password: 'S3cret-pa55word',
      staff: [{ id: MARIA, name: 'Мария', specialization: 'Парикмахер' }],
      services: [{ id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [MARIA] }],
      workingHours: [{ staffId: MARIA, date: DAY, start: '10:00', end: '13:00' }],
    });
    adminEmail = uniqueEmail('admin');
    app = await startTestApp({
      env: {
        ...messengerEnv(telegram, freePort()),
        VK_API_BASE_URL: vk.url,
        YCLIENTS_BASE_URL: yc.url,
        UPSTREAM_BASE_URL: upstream.url,
        BODY_LIMIT_BYTES: String(BODY_LIMIT),
        ADMIN_EMAILS: adminEmail,
        YOOKASSA_SHOP_ID: '506070',
        YOOKASSA_SECRET_KEY: 'test_sweep-secret-key',
        YOOKASSA_API_BASE_URL: yookassa.url,
      },
    });

    [owner, admin, victim, gatewayUser] = await Promise.all([registerUser(app.url), registerUser(app.url, adminEmail), registerUser(app.url), registerUser(app.url)]);
    await grantAdmin(app, adminEmail);
    gatewayKey = (await createApiKey(app.url, gatewayUser.token, 'gateway')).key;
    keyId = (await createApiKey(app.url, owner.token, 'owner key')).id;

    const agentOf = async (type: string) => {
      const res = await send('POST', '/api/agents', { token: owner.token, body: { name: `Агент ${type}`, type, model: 'acme/chat' } });
      if (res instanceof Error || res.status !== 201) throw new Error(`agent: ${res instanceof Error ? res.message : res.text}`);
      return res.body.id as string;
    };
    agents = { creator: await agentOf('creator'), service: await agentOf('service'), shop: await agentOf('ecommerce') };

    const setUp = async (method: string, path: string, body: unknown) => {
      const res = await send(method, path, { token: owner.token, body });
      if (res instanceof Error || res.status >= 300) throw new Error(`${method} ${path}: ${res instanceof Error ? res.message : res.text}`);
      return res.body;
    };
    await setUp('PUT', `/api/v1/messenger/${agents.creator}/settings`, { botToken: BOT_TOKEN, userId: OPERATOR.id });
    telegramSecret = telegram.webhook(BOT_TOKEN)!.secret_token!;
    await setUp('PUT', `/api/v1/social/${agents.creator}/settings`, { groupId: GROUP, accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE });
    await setUp('PUT', `/api/v1/booking/${agents.service}/settings`, validBodies[`PUT /api/v1/booking/{agentId}/settings`]);
    const shop = await setUp('PUT', `/api/v1/commerce/${agents.shop}/settings`, { paymentLinkTemplate: TEMPLATE });
    paymentToken = new URL(shop.webhookUrlWithSecret).searchParams.get('token')!;
    const provider = await send('POST', '/api/admin/providers', { token: admin.token, body: validBodies['POST /api/admin/providers'] });
    if (provider instanceof Error || provider.status !== 201) throw new Error('provider not created');
    providerId = provider.body.id as string;
    productId = (await setUp('POST', `/api/v1/commerce/${agents.shop}/products`, { title: 'Коврик', priceMinor: 70000 })).id;
  });

  afterAll(async () => {
    await app?.close();
    await Promise.all([vk?.close(), telegram?.close(), yc?.close(), upstream?.close(), yookassa?.close()]);
  });
}

/**
 * A valid body per route, so a refusal can only be the one field the sweep spoiled. A route missing here
 * gets a body made from its schema (the sweep still runs; add the route when that body is not valid).
 */
export const validBodies: Record<string, Record<string, unknown>> = {
  'POST /api/auth/register': { email: 'sweep@example.com', password: 'secret123' },
  'POST /api/auth/login': { email: 'sweep@example.com', password: 'secret123', totpCode: '123456' },
  'POST /api/auth/password-reset': { email: 'sweep@example.com' },
  'POST /api/auth/password-reset/confirm': { token: 'A'.repeat(43), password: 'secret123' },
  'POST /api/auth/password': { currentPassword: 'secret123', newPassword: 'secret456' },
  'POST /api/auth/2fa/enable': { code: '123456' },
  'POST /api/auth/2fa/disable': { code: '123456' },
  'POST /api/account/email': { newEmail: 'sweep-new@example.com', password: 'secret123' },
  'POST /api/account/email/confirm': { token: 'A'.repeat(43) },
  'POST /api/keys': { name: 'ключ', spendLimit: 5, limitReset: 'day', expiresAt: '2099-01-01T00:00:00Z' },
  'PATCH /api/keys/{id}': { name: 'ключ', spendLimit: 5, limitReset: 'day', expiresAt: '2099-01-01T00:00:00Z' },
  'POST /api/agents': { name: 'Агент', type: 'creator', systemPrompt: 'Ты — помощник.', model: 'acme/chat' },
  'PATCH /api/agents/{id}': { name: 'Агент', systemPrompt: 'Ты — помощник.', model: 'acme/chat' },
  'PUT /api/v1/messenger/{agentId}/settings': { botToken: BOT_TOKEN, userId: OPERATOR.id, channelId: null },
  'PUT /api/v1/social/{agentId}/settings': { groupId: GROUP, accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  'POST /api/v1/social/check-connection': { groupId: GROUP, accessToken: TOKEN },
  'PUT /api/v1/booking/{agentId}/settings': {
    partnerToken: PARTNER,
    login: 'irina@example.ru',
    password: 'S3cret-pa55word',
    companyId: COMPANY,
    syncEnabled: false,
    slotCacheTtlMinutes: 15,
    specialistMapping: { maria: MARIA },
    serviceMapping: { haircut: HAIRCUT },
  },
  'POST /api/v1/booking/{agentId}/appointments': {
    specialistId: 'maria',
    serviceId: 'haircut',
    datetime: `${DAY}T10:00:00+03:00`,
    clientName: 'Анна',
    clientPhone: '+79990000000',
  },
  'PUT /api/v1/commerce/{agentId}/settings': { paymentLinkTemplate: TEMPLATE, rotateWebhookSecret: false },
  'POST /api/v1/commerce/{agentId}/products': { title: 'Коврик', description: '', priceMinor: 100, currency: 'RUB', available: true },
  'PATCH /api/v1/commerce/{agentId}/products/{productId}': { title: 'Коврик', priceMinor: 100, available: true },
  'POST /api/v1/commerce/{agentId}/products/import': { products: [{ title: 'Коврик', priceMinor: 100 }] },
  'POST /api/billing/topups': { amount: 500 },
  'POST /api/billing/promo': { code: 'SWEEP-CODE-0000' },
  'POST /api/admin/promotions': { name: 'Акция', amount: 10, kind: 'unique', codeCount: 2, expiresAt: '2099-01-01T00:00:00Z' },
  'PUT /api/account/alerts': { lowBalanceThreshold: 1, keyLimitAlerts: true, webhookUrl: 'http://127.0.0.1:9/hook', rotateWebhookSecret: false },
  'POST /api/admin/users/{id}/credit': { amount: 1, reason: 'проверка', reference: 'sweep-1' },
  'PUT /api/admin/prices': { pattern: 'acme/*', promptPerMillion: 1, completionPerMillion: 1 },
  'PUT /api/admin/requisites': {
    companyName: 'ООО «Проверка»',
    inn: '7701234567',
    kpp: '770101001',
    ogrn: '1027700132195',
    address: 'Москва',
    bankName: 'АО «Банк»',
    bik: '044525225',
    account: '40702810400000012345',
    correspondentAccount: '30101810400000000225',
    vatNote: 'Без НДС',
  },
  'PUT /api/account/requisites': { companyName: 'ООО «Проверка»', inn: '7701234567', kpp: '770101001', address: 'Москва' },
  'POST /api/account/invoices': { amount: 1234.56 },
  'POST /api/admin/prices/import/preview': { multiplier: 1, filter: 'acme' },
  'POST /api/admin/prices/import': { multiplier: 1, models: ['acme/chat'] },
  'POST /api/admin/providers': { name: 'Запасной', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test', enabled: true, timeoutMs: 1000 },
  'PATCH /api/admin/providers/{id}': { name: 'Запасной', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test', enabled: true, timeoutMs: 1000 },
  'PUT /api/admin/routes': {
    pattern: 'sweep/*',
    targets: [{ providerId: 'default', priority: 0, weight: 1, model: 'acme/chat', costPrice: { promptPerMillion: 0.5, completionPerMillion: 1 } }],
  },
};

/** Query parameters a route needs before the sweep spoils one of them. */
export const validQueries: Record<string, Record<string, string>> = {
  'GET /api/usage/summary': { from: '2026-01-01' },
  'GET /api/v1/booking/{agentId}/slots': { date: DAY, specialistId: 'maria', serviceId: 'haircut' },
  'DELETE /api/admin/prices': { pattern: 'nothing/*' },
  'DELETE /api/admin/routes': { pattern: 'nothing/*' },
  'GET /api/account/statement': { from: '2026-01-01', to: '2026-01-31' },
  'GET /api/account/statement/export': { from: '2026-01-01', to: '2026-01-31' },
};

export type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';
export type JsonSchema = {
  type?: Kind | Kind[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

/** The JSON kinds a schema accepts; an unconstrained schema ({}) accepts all. */
export function kindsOf(schema: JsonSchema): Set<Kind> {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return new Set(alternatives.flatMap((s) => [...kindsOf(s)]));
  if (schema.type) return new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
  return new Set<Kind>(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);
}

export const WRONG_VALUES: { kind: Kind; value: unknown }[] = [
  { kind: 'string', value: 'false' },
  { kind: 'string', value: 'true' },
  { kind: 'string', value: '5' },
  { kind: 'string', value: '' },
  { kind: 'number', value: 5 },
  { kind: 'number', value: 0 },
  { kind: 'boolean', value: false },
  { kind: 'boolean', value: true },
  { kind: 'null', value: null },
  { kind: 'array', value: [] },
  { kind: 'array', value: [5] },
  { kind: 'array', value: ['x'] },
  { kind: 'object', value: {} },
  { kind: 'object', value: { value: 5 } },
];

export function wrongValuesFor(schema: JsonSchema): unknown[] {
  const kinds = kindsOf(schema);
  const accepts = (kind: Kind) => kinds.has(kind) || (kind === 'number' && kinds.has('integer'));
  return WRONG_VALUES.filter((w) => !accepts(w.kind)).map((w) => w.value);
}

/** A value of the schema's kind, for routes without a known valid body. */
export function exampleOf(schema: JsonSchema): unknown {
  if (schema.enum) return schema.enum[0];
  const kind = [...kindsOf(schema)][0];
  return kind === 'string' ? 'x' : kind === 'number' || kind === 'integer' ? 1 : kind === 'boolean' ? true : kind === 'array' ? [] : kind === 'object' ? {} : null;
}

/** Strings that PostgreSQL cannot store, placed where the field's schema takes text. */
export function badTextValuesFor(schema: JsonSchema): unknown[] {
  const kinds = kindsOf(schema);
  const values: unknown[] = [];
  if (kinds.has('string')) values.push(NUL, LONE_SURROGATE);
  if (kinds.has('array') && schema.items && kindsOf(schema.items).has('string')) values.push([NUL], [LONE_SURROGATE]);
  if (kinds.has('array') && schema.items && !schema.items.type && !schema.items.anyOf) values.push([{ title: NUL }]);
  if (kinds.has('object') && !schema.properties) values.push({ [NUL]: 1 }, { [LONE_SURROGATE]: 1 });
  return values;
}

export interface Route {
  method: string;
  path: string;
  key: string;
  params: { name: string; in: 'path' | 'query'; schema: JsonSchema }[];
  body: JsonSchema | null;
}

export async function routesOfDocument(): Promise<Route[]> {
  const res = await send('GET', '/openapi.json');
  if (res instanceof Error || res.status !== 200) throw new Error('no OpenAPI document');
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(res.body.paths as Record<string, Record<string, any>>)) {
    // The /v1 routes take an API key, not a JWT, and are swept by their own section below; so are the
    // inbound webhooks (raw routes other services call) and the health checks.
    if (path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue; // e.g. path-level `parameters`
      if (op.tags?.includes('webhooks') || op.tags?.includes('health')) continue;
      routes.push({
        method: method.toUpperCase(),
        path,
        key: `${method.toUpperCase()} ${path}`,
        params: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      });
    }
  }
  return routes;
}

/** A credential that may use the route: the admin for /api/admin, the owner for everything else. */
export const tokenFor = (route: Route) => (route.path.startsWith('/api/admin') ? admin.token : owner.token);

/** Real ids for path parameters, so a refusal is about the value swept, not a missing resource. */
export function pathValue(route: Route, name: string): string {
  if (name === 'agentId') return route.path.includes('/booking/') ? agents.service : route.path.includes('/commerce/') ? agents.shop : agents.creator;
  if (name === 'productId') return productId;
  if (name === 'id') {
    if (route.path.startsWith('/api/keys')) return keyId;
    if (route.path.startsWith('/api/agents')) return agents.creator;
    if (route.path.startsWith('/api/admin/users')) return victim.userId;
    if (route.path.startsWith('/api/admin/providers')) return providerId;
  }
  return randomUUID();
}

/** Query values go into the URL as written: percent-escapes (and invalid ones) are the sweep's to make. */
export function urlOf(route: Route, override: { path?: Record<string, string>; query?: Record<string, string | string[]> } = {}): string {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => override.path?.[name] ?? encodeURIComponent(pathValue(route, name)));
  const pairs: string[] = [];
  for (const [name, value] of Object.entries({ ...validQueries[route.key], ...override.query })) {
    for (const v of Array.isArray(value) ? value : [value]) pairs.push(`${name}=${v}`);
  }
  return pairs.length > 0 ? `${path}?${pairs.join('&')}` : path;
}

export function baseBodyOf(route: Route): Record<string, unknown> {
  const known = validBodies[route.key];
  if (known) return known;
  const body: Record<string, unknown> = {};
  for (const name of route.body?.required ?? []) body[name] = exampleOf(route.body!.properties![name]!);
  return body;
}

export const BAD_PATH_VALUES = ['9999999999999999999', '-1', '%00', '%ED%A0%80', '%', '%E0%A4%A', 'x'.repeat(300), '%F0%9F%98%80'];
export const BAD_INTEGERS = ['abc', '1.5', '-1', '0', '99999999999999999999', '1e400', '', '%20', 'NaN'];
export const BAD_TEXT_QUERY = ['%00', '%ED%A0%80', 'x'.repeat(3000)];
export const BAD_DATES = ['-200000-01-01', '275760-09-13', '0000-01-01', '2026-02-30', '2026-13-01', 'yesterday', '1', '2026-01-01T25:00:00Z'];
export const BAD_CURSORS = [
  cursorOf('2026-01-01T00:00:00.000000Z', '9999999999999999999'),
  cursorOf('2026-02-30T00:00:00.000000Z', 1),
  cursorOf('0000-01-01T00:00:00.000000Z', 1),
  cursorOf('2026-02-30T00:00:00.000000Z', randomUUID()),
  cursorOf('0000-01-01T00:00:00.000000Z', randomUUID()),
  'not-a-cursor',
  '%00',
];
export const BAD_TIME_ZONES = ['US/Pacific-New', 'Mars/Olympus', 'UTC;drop', 'EST5EDT,M3.2.0,M11.1.0'];

/** Named query parameters whose bad values must be a 400 naming them, never a 500 (issue 17, point 6). */
export function namedQueryValues(name: string, schema: JsonSchema): { values: string[]; strict: boolean } {
  if (name === 'cursor') return { values: BAD_CURSORS, strict: true };
  if (name === 'from' || name === 'to' || name === 'date') return { values: BAD_DATES, strict: true };
  if (name === 'timeZone') return { values: BAD_TIME_ZONES, strict: true };
  const kinds = kindsOf(schema);
  if (kinds.has('integer') || kinds.has('number')) return { values: BAD_INTEGERS, strict: true };
  return { values: BAD_TEXT_QUERY, strict: false };
}

/** What a user can read back: nothing here may change while the sweep only sends refused requests. */
export async function snapshot(): Promise<Record<string, unknown>> {
  const reads: [string, string][] = [
    ['/api/keys', owner.token],
    ['/api/agents', owner.token],
    ['/api/balance', owner.token],
    ['/api/billing/topups', owner.token],
    [`/api/v1/messenger/${agents.creator}/settings`, owner.token],
    [`/api/v1/social/${agents.creator}/settings`, owner.token],
    [`/api/v1/booking/${agents.service}/settings`, owner.token],
    [`/api/v1/commerce/${agents.shop}/settings`, owner.token],
    [`/api/v1/commerce/${agents.shop}/products`, owner.token],
    ['/api/admin/prices', admin.token],
    [`/api/admin/users/${victim.userId}`, admin.token],
    ['/api/admin/audit', admin.token],
  ];
  const state: Record<string, unknown> = {};
  for (const [path, token] of reads) {
    const res = await send('GET', path, { token });
    state[path] = res instanceof Error ? res.message : { status: res.status, body: res.body };
  }
  const [webhookSecret] = await app.sql<{ secret: string }>('select webhook_secret_sealed as secret from commerce_settings where agent_id = $1', [agents.shop]);
  state.commerceWebhookSecret = webhookSecret?.secret;
  return state;
}

export function expectFieldError(res: Answer | Error, field: string) {
  if (res instanceof Error) throw res;
  expect({ status: res.status, type: res.body?.error?.type }).toEqual({ status: 400, type: 'invalid_request_error' });
  expect({ field, problem: namingProblem(res.body.error.message, field) }).toEqual({ field, problem: null });
}
