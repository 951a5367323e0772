// Typed client for the YooKassa API v3 payments: create a payment (one-stage, redirect confirmation) and
// read one. Used by balance top-ups (the service's own shop) and by E-commerce agents (each shop's own
// account). Wire format: docs/integrations/yookassa.md.
//
// Every POST carries an Idempotence-Key: YooKassa answers a repeat of the same key and body with the
// original result and refuses the same key with another body ("Idempotence key duplicated"). A 5xx, a
// 429, a timeout or a dropped connection leave the result unknown, so such a call is repeated with the
// very same key and body (by default twice more) before the caller hears of the failure.
// Credentials go into the Authorization header and nowhere else: error messages are built from the
// method, the path and YooKassa's own error fields, and scrubbed of the secret in case an answer echoes it.
import { z } from 'zod';
import { NANO_PER_UNIT } from '../money';
import { failureMessage, httpCall, HttpCallNetworkError, redact } from '../integrations/http-call';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_RETRY_DELAY_MS = 500;
/** YooKassa's limits: description up to 128 characters, Idempotence-Key up to 64. */
export const MAX_PAYMENT_DESCRIPTION = 128;
export const MAX_IDEMPOTENCE_KEY = 64;

/** The subset of `fetch` the client needs. */
export type YookassaFetch = (input: string, init: RequestInit) => Promise<Response>;

export interface YookassaCredentials {
  shopId: string;
  secretKey: string;
}

export interface YookassaClientOptions {
  /** Config's YOOKASSA_API_BASE_URL, e.g. https://api.yookassa.ru/v3 (a trailing slash is tolerated). */
  baseUrl: string;
  credentials: YookassaCredentials;
  fetch?: YookassaFetch;
  /** Per attempt, including reading the answer. Default 10 s. */
  timeoutMs?: number;
  /** Further attempts of a call whose result is unknown (5xx, 429, network, timeout). Default 2. */
  retries?: number;
  /** Pause before the first repeat, doubled for each next one. Default 500 ms. */
  retryDelayMs?: number;
}

// ---------------------------------------------------------------------------------------------
// What YooKassa answers, checked before anything is believed.

export const PAYMENT_STATUSES = ['pending', 'waiting_for_capture', 'succeeded', 'canceled'] as const;
export type YookassaPaymentStatus = (typeof PAYMENT_STATUSES)[number];

const amountSchema = z.object({
  value: z.string().regex(/^\d{1,15}(\.\d{1,2})?$/),
  currency: z.string().regex(/^[A-Z]{3}$/),
});

export const yookassaPaymentSchema = z.object({
  id: z.string().min(1).max(100),
  status: z.enum(PAYMENT_STATUSES),
  paid: z.boolean(),
  amount: amountSchema,
  confirmation: z.object({ type: z.string(), confirmation_url: z.string().optional() }).nullish(),
  created_at: z.string(),
  description: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  cancellation_details: z.object({ party: z.string(), reason: z.string() }).nullish(),
  /**
   * How it was paid; for a card saved for autopayments `saved` is true and `id` is what later payments send
   * as `payment_method_id` (a secret of the shop: sealed when stored, never logged or shown).
   */
  payment_method: z
    .object({
      type: z.string().max(100),
      id: z.string().min(1).max(100),
      saved: z.boolean(),
      title: z.string().max(200).optional(),
      card: z
        .object({
          last4: z.string().max(4).optional(),
          expiry_month: z.string().max(2).optional(),
          expiry_year: z.string().max(4).optional(),
          card_type: z.string().max(50).optional(),
        })
        .optional(),
    })
    .nullish()
    // A method described in a way this schema does not know is read as none: the payment itself still counts.
    .catch(null),
  test: z.boolean().optional(),
});

export type YookassaPayment = z.infer<typeof yookassaPaymentSchema>;

/** A freshly created redirect payment: the buyer is sent to `confirmation.confirmation_url`. */
const createdPaymentSchema = yookassaPaymentSchema.extend({
  confirmation: z.object({ type: z.literal('redirect'), confirmation_url: z.url() }),
});

export type YookassaCreatedPayment = z.infer<typeof createdPaymentSchema>;

const errorBodySchema = z.object({
  type: z.literal('error'),
  id: z.string().optional(),
  code: z.string(),
  description: z.string().optional(),
  parameter: z.string().optional(),
});

// ---------------------------------------------------------------------------------------------
// Errors

/**
 * A YooKassa payment id: 36 characters, hex digits and dashes in the UUID layout
 * (`2f3b588d-000f-5000-8000-1d6e87c7fbde`; the API reference types it string(36)). Anything else is never
 * sent to YooKassa: it would only cost a request, and text such as `..` changes the URL's path.
 */
const PAYMENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isYookassaPaymentId(id: string): boolean {
  return PAYMENT_ID.test(id);
}

/**
 * Decided on the HTTP status, as YooKassa documents them:
 * - `invalid_request`: 400 — the request broke a rule (bad amount, receipt, a reused Idempotence-Key…).
 * - `invalid_credentials`: 401 — shop id or secret key wrong.
 * - `forbidden`: 403 — the shop may not do this (method not enabled, shop not activated).
 * - `not_found`: 404 — no such payment in this shop.
 * - `rate_limited`: 429.
 * - `server`: 5xx — YooKassa's trouble; the result of a POST is unknown.
 * - `unexpected`: any other status, or a 2xx whose body is not what the API promises.
 */
export type YookassaErrorKind = 'invalid_request' | 'invalid_credentials' | 'forbidden' | 'not_found' | 'rate_limited' | 'server' | 'unexpected';

/** YooKassa answered, but not with the object asked for. The message never carries a credential. */
export class YookassaApiError extends Error {
  override readonly name = 'YookassaApiError';
  readonly kind: YookassaErrorKind;
  readonly status: number;
  /** YooKassa's `code` (invalid_request, invalid_credentials, …) when the body carried one. */
  readonly code: string | null;
  readonly description: string | null;
  /** The request parameter YooKassa blamed, e.g. "amount.value" or "Idempotence-Key". */
  readonly parameter: string | null;
  /** YooKassa's id of the failed request, for its support. */
  readonly errorId: string | null;
  readonly method: string;
  readonly path: string;

  constructor(init: {
    kind: YookassaErrorKind;
    status: number;
    message: string;
    code: string | null;
    description: string | null;
    parameter: string | null;
    errorId: string | null;
    method: string;
    path: string;
  }) {
    super(init.message);
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.description = init.description;
    this.parameter = init.parameter;
    this.errorId = init.errorId;
    this.method = init.method;
    this.path = init.path;
  }

  /** The call may have done its work or not: repeat it with the same Idempotence-Key, or re-read later. */
  get resultUnknown(): boolean {
    return this.kind === 'server' || this.kind === 'rate_limited';
  }
}

/** YooKassa could not be reached, or did not answer within the timeout: the result is unknown. */
export class YookassaNetworkError extends HttpCallNetworkError {
  override readonly name = 'YookassaNetworkError';

  get resultUnknown(): true {
    return true;
  }
}

export type YookassaError = YookassaApiError | YookassaNetworkError;

export function isYookassaError(error: unknown): error is YookassaError {
  return error instanceof YookassaApiError || error instanceof YookassaNetworkError;
}

// ---------------------------------------------------------------------------------------------
// Money on the wire: "100.00" strings with two decimals, our side integer nano-units.

const NANO_PER_MINOR = NANO_PER_UNIT / 100n;

/** 100_000_000_000n → "100.00". Throws for a negative amount or one finer than 0.01. */
export function nanoToAmountValue(nano: bigint): string {
  if (nano < 0n || nano % NANO_PER_MINOR !== 0n) throw new RangeError('a payment amount is a non-negative whole number of 0.01');
  const minor = nano / NANO_PER_MINOR;
  return `${minor / 100n}.${(minor % 100n).toString().padStart(2, '0')}`;
}

/** "100.00" or "100.5" or "100" → nano-units; null when it is not such a decimal. */
export function amountValueToNano(value: string): bigint | null {
  const match = /^(\d{1,15})(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) return null;
  const minor = BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
  return minor * NANO_PER_MINOR;
}

// ---------------------------------------------------------------------------------------------
// The client

/** A 54-FZ receipt line. `amountNano` is the price of one unit. */
export interface YookassaReceiptItem {
  description: string;
  /** Whole units; sent as "1.00". */
  quantity: number;
  amountNano: bigint;
  /** YooKassa's vat_code (1 = without VAT …). */
  vatCode: number;
  /** e.g. "service", "commodity". */
  paymentSubject: string;
  /** e.g. "full_payment", "full_prepayment". */
  paymentMode: string;
}

export interface YookassaReceipt {
  /** An e-mail, or a phone in international digits (79161234567): YooKassa takes either. */
  customer: { email: string } | { phone: string };
  items: YookassaReceiptItem[];
}

export interface CreatePaymentInput {
  amountNano: bigint;
  currency: string;
  /** Shown to the buyer on YooKassa's page; cut to 128 characters. */
  description: string;
  /** Where YooKassa sends the buyer back after paying or giving up. */
  returnUrl: string;
  /** Returned in every answer and notification: up to 16 keys, string values. */
  metadata: Record<string, string>;
  receipt?: YookassaReceipt;
  /** Ask YooKassa to keep the card for autopayments (`save_payment_method: true`); the buyer is told on its page. */
  savePaymentMethod?: boolean;
}

/** An autopayment: the saved method is charged at once, with no page for the buyer. */
export interface ChargeSavedMethodInput {
  amountNano: bigint;
  currency: string;
  description: string;
  /** The saved method's id (`payment_method.id` of the payment that saved it). */
  paymentMethodId: string;
  metadata: Record<string, string>;
  receipt?: YookassaReceipt;
}

export interface YookassaClient {
  /** `POST /payments`, one-stage (capture: true) with a redirect confirmation. */
  createPayment(input: CreatePaymentInput, idempotenceKey: string): Promise<YookassaCreatedPayment>;
  /**
   * `POST /payments` with `payment_method_id` and no confirmation: YooKassa answers succeeded or canceled
   * (pending while a receipt-first till is still registering the receipt).
   */
  chargeSavedMethod(input: ChargeSavedMethodInput, idempotenceKey: string): Promise<YookassaPayment>;
  /** `GET /payments/{id}`: the authoritative state of a payment. */
  getPayment(paymentId: string): Promise<YookassaPayment>;
}

interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  idempotenceKey?: string;
}

export function createYookassaClient(options: YookassaClientOptions): YookassaClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch: YookassaFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries = Math.max(0, options.retries ?? DEFAULT_RETRIES);
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const { shopId, secretKey } = options.credentials;
  const authorization = `Basic ${Buffer.from(`${shopId}:${secretKey}`).toString('base64')}`;
  const secrets = [secretKey, authorization];

  async function attempt(spec: RequestSpec): Promise<unknown> {
    const headers: Record<string, string> = { Authorization: authorization, Accept: 'application/json' };
    if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
    if (spec.idempotenceKey !== undefined) headers['Idempotence-Key'] = spec.idempotenceKey;
    const outcome = await httpCall(doFetch, baseUrl + spec.path, { method: spec.method, headers, body: spec.body }, { timeoutMs });
    if (!outcome.ok) {
      throw new YookassaNetworkError({
        message: failureMessage(`YooKassa ${spec.method} ${spec.path}`, outcome, timeoutMs, secrets),
        method: spec.method,
        path: spec.path,
        timedOut: outcome.timedOut,
      });
    }
    const { status, body } = outcome;
    if (status >= 200 && status < 300) return body;
    throw apiError(status, body, spec, secrets);
  }

  /** One call, repeated with the same key and body while its result is unknown. */
  async function call(spec: RequestSpec): Promise<unknown> {
    for (let n = 0; ; n++) {
      try {
        return await attempt(spec);
      } catch (error) {
        const unknown = error instanceof YookassaNetworkError || (error instanceof YookassaApiError && error.resultUnknown);
        if (!unknown || n >= retries) throw error;
        await Bun.sleep(retryDelayMs * 2 ** n);
      }
    }
  }

  function parsed<T>(schema: z.ZodType<T>, body: unknown, spec: RequestSpec): T {
    const result = schema.safeParse(body);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    throw new YookassaApiError({
      kind: 'unexpected',
      status: 200,
      message: `YooKassa ${spec.method} ${spec.path} answered an unexpected body (${issue ? `${issue.path.join('.') || 'body'}: ${issue.code}` : 'invalid'})`,
      code: null,
      description: null,
      parameter: null,
      errorId: null,
      method: spec.method,
      path: spec.path,
    });
  }

  /** `POST /payments` with the body serialised once: every repeat must send the same bytes under the same key. */
  async function post(payload: Record<string, unknown>, idempotenceKey: string): Promise<unknown> {
    if (idempotenceKey.length === 0 || idempotenceKey.length > MAX_IDEMPOTENCE_KEY) {
      throw new RangeError(`Idempotence-Key must be 1–${MAX_IDEMPOTENCE_KEY} characters`);
    }
    return call({ ...POST_PAYMENTS, body: JSON.stringify(payload), idempotenceKey });
  }

  return {
    async createPayment(input, idempotenceKey) {
      const currency = input.currency.toUpperCase();
      const payload: Record<string, unknown> = {
        amount: { value: nanoToAmountValue(input.amountNano), currency },
        capture: true,
        confirmation: { type: 'redirect', return_url: input.returnUrl },
        description: input.description.slice(0, MAX_PAYMENT_DESCRIPTION),
        metadata: input.metadata,
      };
      if (input.savePaymentMethod) payload.save_payment_method = true;
      if (input.receipt) payload.receipt = receiptPayload(input.receipt, currency);
      return parsed(createdPaymentSchema, await post(payload, idempotenceKey), POST_PAYMENTS);
    },

    async chargeSavedMethod(input, idempotenceKey) {
      const currency = input.currency.toUpperCase();
      const payload: Record<string, unknown> = {
        amount: { value: nanoToAmountValue(input.amountNano), currency },
        capture: true,
        payment_method_id: input.paymentMethodId,
        description: input.description.slice(0, MAX_PAYMENT_DESCRIPTION),
        metadata: input.metadata,
      };
      if (input.receipt) payload.receipt = receiptPayload(input.receipt, currency);
      return parsed(yookassaPaymentSchema, await post(payload, idempotenceKey), POST_PAYMENTS);
    },

    async getPayment(paymentId) {
      const spec: RequestSpec = { method: 'GET', path: `/payments/${encodeURIComponent(paymentId)}` };
      // Not asked: no payment has such an id, so the answer is YooKassa's own 404, given without the request.
      if (!isYookassaPaymentId(paymentId)) {
        throw new YookassaApiError({
          kind: 'not_found',
          status: 404,
          message: 'not a YooKassa payment id; not asked',
          code: 'not_found',
          description: null,
          parameter: null,
          errorId: null,
          method: spec.method,
          path: '/payments/{id}',
        });
      }
      return parsed(yookassaPaymentSchema, await call(spec), spec);
    },
  };
}

const POST_PAYMENTS: RequestSpec = { method: 'POST', path: '/payments' };

/** A 54-FZ receipt as YooKassa takes it, in the payment's currency. */
function receiptPayload(receipt: YookassaReceipt, currency: string) {
  return {
    customer: 'email' in receipt.customer ? { email: receipt.customer.email } : { phone: receipt.customer.phone },
    items: receipt.items.map((item) => ({
      description: item.description.slice(0, MAX_PAYMENT_DESCRIPTION),
      // A decimal string with two places, as YooKassa's own examples write it.
      quantity: item.quantity.toFixed(2),
      amount: { value: nanoToAmountValue(item.amountNano), currency },
      vat_code: item.vatCode,
      payment_subject: item.paymentSubject,
      payment_mode: item.paymentMode,
    })),
  };
}

function kindForStatus(status: number): YookassaErrorKind {
  if (status === 400) return 'invalid_request';
  if (status === 401) return 'invalid_credentials';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server';
  return 'unexpected';
}

function apiError(status: number, body: unknown, spec: RequestSpec, secrets: string[]): YookassaApiError {
  const parsedBody = errorBodySchema.safeParse(body);
  const e = parsedBody.success ? parsedBody.data : null;
  const detail = e ? `${e.code}${e.description ? `: ${e.description}` : ''}${e.parameter ? ` (${e.parameter})` : ''}` : 'no error body';
  return new YookassaApiError({
    kind: kindForStatus(status),
    status,
    message: redact(`YooKassa ${spec.method} ${spec.path} answered HTTP ${status}: ${detail}`, secrets),
    code: e?.code ?? null,
    description: e?.description ? redact(e.description, secrets) : null,
    parameter: e?.parameter ?? null,
    errorId: e?.id ?? null,
    method: spec.method,
    path: spec.path,
  });
}
