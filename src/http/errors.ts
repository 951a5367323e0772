// One error class and one renderer: every failure leaves the service as {error:{message,type}}, on /v1 as
// OpenAI's {error:{message,type,param,code}}, which the SDKs read (decisions.md), and on /v1/messages as
// Anthropic's {type:"error", error:{type,message}}.
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { ZodError, z } from 'zod';
import { isTransientDatabaseError } from '../db/transient';
import { fieldLabel, fieldPath } from './field-labels';
import { errorMessages } from './messages';

// Validation messages reach users, so zod speaks Russian everywhere in the process.
z.config(z.locales.ru());

export const errorTypes = {
  invalid_request_error: { status: 400, trpc: 'BAD_REQUEST', message: errorMessages.invalidRequest },
  unauthorized: { status: 401, trpc: 'UNAUTHORIZED', message: errorMessages.unauthorized },
  insufficient_balance: { status: 402, trpc: 'PAYMENT_REQUIRED', message: errorMessages.insufficientBalance },
  forbidden: { status: 403, trpc: 'FORBIDDEN', message: errorMessages.forbidden },
  not_found: { status: 404, trpc: 'NOT_FOUND', message: errorMessages.notFound },
  conflict: { status: 409, trpc: 'CONFLICT', message: errorMessages.conflict },
  payload_too_large: { status: 413, trpc: 'PAYLOAD_TOO_LARGE', message: errorMessages.payloadTooLarge },
  rate_limit_exceeded: { status: 429, trpc: 'TOO_MANY_REQUESTS', message: errorMessages.rateLimited },
  upstream_error: { status: 502, trpc: 'BAD_GATEWAY', message: errorMessages.upstreamError },
  upstream_timeout: { status: 504, trpc: 'GATEWAY_TIMEOUT', message: errorMessages.upstreamTimeout },
  service_unavailable: { status: 503, trpc: 'SERVICE_UNAVAILABLE', message: errorMessages.serviceUnavailable },
  internal_error: { status: 500, trpc: 'INTERNAL_SERVER_ERROR', message: errorMessages.internal },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY; message: string }>;

export type ErrorType = keyof typeof errorTypes;

/**
 * The stable machine code a /v1 client may branch on when the thrower names none. Types missing here
 * (validation, conflicts) are too varied for one code: their throwers name it, or it stays null.
 */
const defaultCodes: Partial<Record<ErrorType, string>> = {
  unauthorized: 'invalid_api_key',
  insufficient_balance: 'insufficient_quota',
  not_found: 'unknown_url',
  payload_too_large: 'payload_too_large',
  rate_limit_exceeded: 'rate_limit_exceeded',
  upstream_error: 'upstream_error',
  upstream_timeout: 'upstream_timeout',
  service_unavailable: 'service_unavailable',
  internal_error: 'internal_error',
};

/** Codes a thrower names, kept in one table so clients can rely on the spelling. */
export const errorCodes = {
  missingApiKey: 'missing_api_key',
  invalidApiKey: 'invalid_api_key',
  apiKeyRevoked: 'api_key_revoked',
  apiKeyExpired: 'api_key_expired',
  accountBlocked: 'account_blocked',
  insufficientQuota: 'insufficient_quota',
  keySpendLimit: 'key_spend_limit',
  /** An organisation member's monthly spend limit (organization_members) is used up. */
  memberSpendLimit: 'member_spend_limit',
  /** 429s: which rate limit refused (the key's or the account's; the message says which). */
  rpmExceeded: 'rpm_exceeded',
  tpmExceeded: 'tpm_exceeded',
  rpdExceeded: 'rpd_exceeded',
  invalidJson: 'invalid_json',
  idempotencyKeyInvalid: 'invalid_idempotency_key',
  idempotencyKeyReused: 'idempotency_key_reused',
  idempotencyInProgress: 'idempotency_in_progress',
  idempotencyNotReplayable: 'idempotency_not_replayable',
  modelNotFound: 'model_not_found',
  /** The account's price group lists the models it may call, and this one is not among them (403). */
  modelNotAllowed: 'model_not_allowed',
  /** The provider answered 529 (Anthropic's "overloaded"): a Messages client hears overloaded_error 529. */
  upstreamOverloaded: 'upstream_overloaded',
  previousResponseNotFound: 'previous_response_not_found',
  totpRequired: 'totp_required',
  totpInvalid: 'totp_invalid',
  /** Promo code refusals (POST /api/billing/promo): unknown or withdrawn, past its date, used up, this account's second, not for this account. */
  promoInvalid: 'promo_invalid',
  promoExpired: 'promo_expired',
  promoUsed: 'promo_used',
  promoAlreadyRedeemed: 'promo_already_redeemed',
  promoNotEligible: 'promo_not_eligible',
} as const;

/**
 * Codes the dashboard body carries too, beside {message, type}: a client must tell "the password was
 * right, now the second factor" from an ordinary 401 without reading the Russian text.
 */
const dashboardCodes: ReadonlySet<string> = new Set([
  errorCodes.totpRequired,
  errorCodes.totpInvalid,
  errorCodes.promoInvalid,
  errorCodes.promoExpired,
  errorCodes.promoUsed,
  errorCodes.promoAlreadyRedeemed,
  errorCodes.promoNotEligible,
]);

export interface ErrorBody {
  error: { message: string; type: string; code?: string };
}

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface AppErrorOptions {
  headers?: Record<string, string>;
  cause?: unknown;
  /** The request field at fault, as OpenAI names it (`messages`, `messages[0].role`), shown on /v1. */
  param?: string | null;
  /** A stable machine code shown on /v1; when absent, the type's default (or null). */
  code?: string | null;
  /**
   * Each field at fault (its English path) with what is wrong with it, for a form to show under the
   * field. Given to the dashboard in tRPC's error data; the REST body keeps decisions.md's {message, type}.
   */
  fields?: Record<string, string> | null;
}

/**
 * The service's one error, thrown by services, procedures and raw handlers alike. It is a plain domain
 * error: tRPC wraps it into a TRPCError whose `cause` it is, and trpc/init.ts's formatter reads it back
 * through this table, so no feature depends on @trpc/server to fail.
 */
export class AppError extends Error {
  readonly type: ErrorType;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly param: string | null;
  /** The machine code a client may branch on (`invalid_api_key`); `code` would read as tRPC's on a wrapper. */
  readonly errorCode: string | null;
  readonly fields: Record<string, string> | null;

  constructor(type: ErrorType, message?: string, options: AppErrorOptions = {}) {
    const def = errorTypes[type];
    super(message ?? def.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.type = type;
    this.status = def.status;
    this.headers = options.headers ?? {};
    this.param = options.param ?? null;
    this.errorCode = options.code !== undefined ? options.code : (defaultCodes[type] ?? null);
    this.fields = options.fields ?? (options.param ? { [options.param]: message ?? def.message } : null);
  }

  /** An error whose status and body were decided elsewhere (an upstream 4xx passed through). */
  static passthrough(status: number, message: string, type: string, detail: PassthroughDetail = {}): PassthroughError {
    return new PassthroughError(status, message, type, detail);
  }
}

/** What of an upstream's error is relayed beside its status, message and type. */
export interface PassthroughDetail {
  param?: string | null;
  code?: string | null;
  /** Headers of the upstream's answer worth relaying (its retry-after on a 429). */
  headers?: Record<string, string>;
}

/** An upstream 4xx relayed to the client with its own status, message, type, param and code. */
export class PassthroughError extends AppError {
  readonly passStatus: number;
  readonly passType: string;
  constructor(status: number, message: string, type: string, detail: PassthroughDetail = {}) {
    // The upstream's own code (model_not_found, context_length_exceeded…) or none: never one of ours.
    super('invalid_request_error', message, { param: detail.param ?? null, code: detail.code ?? null, headers: detail.headers });
    this.passStatus = status;
    this.passType = type;
  }
}

/** A message written for a field may name it already ("Цена: …"): say it once. */
function withName(name: string, message: string): string {
  return message.startsWith(`${name}:`) ? message : `${name}: ${message}`;
}

/**
 * Russian text for a zod failure on a dashboard route: the first few issues, each after the Russian
 * label of its field (http/field-labels.ts; `procedure` picks a form's own label where one key means
 * different fields). A field with no label keeps its path, which test/platform/bad-input-fields.test.ts does not let pass.
 */
export function describeZodError(error: ZodError, procedure?: string): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    if (issue.path.length === 0) return issue.message;
    const label = fieldLabel(issue.path, procedure);
    if (!label) return withName(fieldPath(issue.path), issue.message);
    // A message written as "groupId: …" names the field by its key: the label replaces it.
    const key = `${String(issue.path.at(-1))}: `;
    return withName(label, issue.message.startsWith(key) ? issue.message.slice(key.length) : issue.message);
  });
  return `${errorMessages.validationFailed}: ${parts.join('; ')}`;
}

/** Each field at fault (English path) with its own message, the first one per field. */
export function zodFields(error: ZodError): Record<string, string> | null {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = fieldPath(issue.path);
    if (path) fields[path] ??= issue.message;
  }
  return Object.keys(fields).length > 0 ? fields : null;
}

/** OpenAI's spelling of a field path: `messages[0].content`, or null for the body as a whole. */
export function zodParam(error: ZodError): string | null {
  return fieldPath(error.issues[0]?.path ?? []) || null;
}

/**
 * A 400 for a /v1 body that failed its schema: the issues with OpenAI's field paths (the names its SDKs
 * and documentation use), and the first one's field in `param`.
 */
export function validationError(error: ZodError, cause?: unknown): AppError {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join('.');
    // Messages written for a field often name it already ("n: …"): say it once.
    const named = issue.path.length > 0 && issue.message.startsWith(`${String(issue.path.at(-1))}:`);
    return path && !named ? `${path}: ${issue.message}` : issue.message;
  });
  return new AppError('invalid_request_error', `${errorMessages.validationFailed}: ${parts.join('; ')}`, {
    param: zodParam(error),
    fields: zodFields(error),
    cause: cause ?? error,
  });
}

/** A 400 for dashboard input that failed its schema: the fields by their Russian labels. */
export function dashboardValidationError(error: ZodError, procedure?: string, cause?: unknown): AppError {
  return new AppError('invalid_request_error', describeZodError(error, procedure), {
    param: zodParam(error),
    fields: zodFields(error),
    cause: cause ?? error,
  });
}

function findCause<T>(error: unknown, match: (e: unknown) => e is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (match(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The domain error inside a failure, however deeply wrapped (tRPC, Drizzle): a thrown AppError, or a
 * failed schema as a 400. `procedure` (a tRPC path such as `agents.create`) names the form whose input
 * failed, for its labels.
 */
export function domainError(error: unknown, procedure?: string): AppError | undefined {
  const app = findCause(error, (e): e is AppError => e instanceof AppError);
  if (app) return app;
  const zod = findCause(error, (e): e is ZodError => e instanceof ZodError);
  return zod ? dashboardValidationError(zod, procedure, error) : undefined;
}

/**
 * Maps anything thrown anywhere into the service's error; unknown failures become internal_error.
 * tRPC's own failures are translated by trpc/errors.ts before they get here.
 */
export function toAppError(error: unknown, procedure?: string): AppError {
  const domain = domainError(error, procedure);
  if (domain) return domain;
  // The database is away for a moment (restart, failover, network): the client should come back shortly.
  if (isTransientDatabaseError(error)) {
    return new AppError('service_unavailable', undefined, { cause: error, headers: { 'retry-after': '5' } });
  }
  return new AppError('internal_error', undefined, { cause: error });
}

export function errorStatus(error: AppError): number {
  return error instanceof PassthroughError ? error.passStatus : error.status;
}

/**
 * Anthropic's Messages API (/v1/messages, /v1/messages/count_tokens): its errors take Anthropic's shape
 * {type:"error", error:{type, message}}, which the Anthropic SDKs and Claude Code read.
 */
export function isAnthropicPath(path: string): boolean {
  return path === '/v1/messages' || path.startsWith('/v1/messages/');
}

/** Our error types as Anthropic names them; the status stays ours (402 is Anthropic's billing_error too). */
const anthropicTypes: Record<ErrorType, string> = {
  invalid_request_error: 'invalid_request_error',
  unauthorized: 'authentication_error',
  insufficient_balance: 'billing_error',
  forbidden: 'permission_error',
  not_found: 'not_found_error',
  conflict: 'conflict_error',
  payload_too_large: 'request_too_large',
  rate_limit_exceeded: 'rate_limit_error',
  upstream_error: 'api_error',
  upstream_timeout: 'timeout_error',
  service_unavailable: 'overloaded_error',
  internal_error: 'api_error',
};

/** Anthropic's error type for each status it documents, for an upstream's error relayed with its own status. */
const anthropicTypeByStatus: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};
const ANTHROPIC_TYPES: ReadonlySet<string> = new Set([...Object.values(anthropicTypes), ...Object.values(anthropicTypeByStatus)]);

/** The status a Messages client hears: ours, except a provider's 529 (overloaded) passes as 529. */
export function anthropicStatus(error: AppError): number {
  return error.errorCode === errorCodes.upstreamOverloaded ? 529 : errorStatus(error);
}

/**
 * Anthropic's type for an error: ours mapped (unauthorized → authentication_error…); an upstream's relayed
 * error keeps its type when Anthropic knows it (an anthropic provider's own), else the status decides.
 */
export function anthropicErrorType(error: AppError): string {
  if (error.errorCode === errorCodes.upstreamOverloaded) return 'overloaded_error';
  if (error instanceof PassthroughError) {
    if (ANTHROPIC_TYPES.has(error.passType)) return error.passType;
    return anthropicTypeByStatus[error.passStatus] ?? (error.passStatus >= 500 ? 'api_error' : 'invalid_request_error');
  }
  return anthropicTypes[error.type];
}

/** Anthropic's name for one of our error types (an error event in a Messages stream). */
export function anthropicTypeOf(type: ErrorType): string {
  return anthropicTypes[type];
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

export function anthropicErrorBody(error: AppError): AnthropicErrorBody {
  return { type: 'error', error: { type: anthropicErrorType(error), message: error.message } };
}

/** The OpenAI-compatible surface: its errors carry OpenAI's `param` and `code` as well. */
export function isOpenAiPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

export function pathOf(at: Request | string): string {
  if (typeof at === 'string') return at;
  const url = at.url;
  // The path without building a URL object: this runs for every error.
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

export function errorBody(error: AppError): ErrorBody;
export function errorBody(error: AppError, openAi: true): OpenAiErrorBody;
export function errorBody(error: AppError, openAi?: boolean): ErrorBody | OpenAiErrorBody;
export function errorBody(error: AppError, openAi = false): ErrorBody | OpenAiErrorBody {
  const type = error instanceof PassthroughError ? error.passType : error.type;
  if (!openAi) {
    return error.errorCode !== null && dashboardCodes.has(error.errorCode)
      ? { error: { message: error.message, type, code: error.errorCode } }
      : { error: { message: error.message, type } };
  }
  return { error: { message: error.message, type, param: error.param, code: error.errorCode } };
}

/**
 * The one renderer of error responses, called by every exit (Elysia's onError, the REST bridge, the
 * server's last-resort catch) and by the few answers made before a route runs. Anything thrown is first
 * mapped through the table (toAppError). Given the request (or its path), a /v1 answer gets OpenAI's
 * shape, a /v1/messages answer Anthropic's; every other route, and a caller that does not say, keeps the
 * dashboard's {message, type}.
 * It does not log: each exit logs an internal failure once, with what it knows of the request.
 */
export function renderError(error: unknown, at?: Request | string, extraHeaders: Record<string, string> = {}): Response {
  const app = toAppError(error);
  const path = at === undefined ? null : pathOf(at);
  if (path !== null && isAnthropicPath(path)) {
    return new Response(JSON.stringify(anthropicErrorBody(app)), {
      status: anthropicStatus(app),
      headers: { 'content-type': 'application/json; charset=utf-8', ...app.headers, ...extraHeaders },
    });
  }
  const openAi = path !== null && isOpenAiPath(path);
  return new Response(JSON.stringify(errorBody(app, openAi)), {
    status: errorStatus(app),
    headers: { 'content-type': 'application/json; charset=utf-8', ...app.headers, ...extraHeaders },
  });
}

/** True when a database error (possibly wrapped by Drizzle) is a unique-constraint violation. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pg = findCause(
    error,
    (e): e is { code: string; constraint_name?: string; constraint?: string } => typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505',
  );
  if (!pg) return false;
  if (!constraint) return true;
  return (pg.constraint_name ?? pg.constraint) === constraint;
}
