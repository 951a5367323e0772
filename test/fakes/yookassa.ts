// A fake YooKassa API v3 for tests: a real HTTP server speaking the wire format of
// docs/integrations/yookassa.md — HTTP Basic (shop id : secret key), Idempotence-Key on every POST,
// payment objects, and YooKassa's error body {type: "error", id, code, description, parameter}.
// Payments live in memory per shop; tests move them to succeeded/canceled, send notifications with
// YooKassa's exact body, make calls fail, and count what was asked.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { FailureQueue, jsonOrText, startFakeServer } from './fake-server';

export const FAKE_API_PREFIX = '/v3';

export type FakePaymentStatus = 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';

export interface FakePayment {
  id: string;
  shopId: string;
  status: FakePaymentStatus;
  paid: boolean;
  amount: { value: string; currency: string };
  description?: string;
  metadata: Record<string, string>;
  returnUrl: string;
  confirmationUrl: string;
  createdAt: string;
  capturedAt?: string;
  cancellationDetails?: { party: string; reason: string };
  /** The receipt as it was posted, when there was one. */
  receipt?: unknown;
  /** Asked with save_payment_method: true: the card is saved when the payment succeeds. */
  savePaymentMethod?: boolean;
  /** The saved method this payment used or saved (its id, not a copy). */
  methodId?: string;
}

/** A payment method YooKassa keeps for autopayments. */
export interface FakeSavedMethod {
  id: string;
  shopId: string;
  /** False once the holder revoked it or the card died: charges are refused. */
  saved: boolean;
  title: string;
  card: { first6: string; last4: string; expiry_month: string; expiry_year: string; card_type: string };
}

/** How the next autopayment ends: canceled with this reason (permission_revoked also unsaves the method), or left pending. */
export type FakeChargeOutcome = { cancel: string } | { pending: true };

export interface RecordedCall {
  method: string;
  /** Path relative to /v3, e.g. "/payments" or "/payments/2f3b…". */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text when not JSON, or null. */
  body: unknown;
  /** The shop the Basic credentials named (null when absent or malformed). */
  shopId: string | null;
  /** The status the fake answered. */
  status: number;
}

export interface FailureSpec {
  status: number;
  /** Object: sent as JSON. String: sent raw. Absent: YooKassa's error body for the status. */
  body?: unknown;
  /** How many matching calls fail; default 1. */
  times?: number;
  method?: 'GET' | 'POST';
  /** Substring of the path (relative to /v3) a call must contain to fail. */
  path?: string;
  /** Do the work first (create the payment, remember the key), then answer the failure: a lost answer. */
  afterProcessing?: boolean;
  /** Hold the answer this long (a hang past the client's timeout); released by close(). */
  delayMs?: number;
}

export interface FakeYookassa {
  /** Base URL for the client, e.g. http://127.0.0.1:54321/v3. */
  url: string;
  calls: RecordedCall[];
  /** Payments of every shop, newest last. */
  readonly payments: FakePayment[];
  addShop(shopId: string, secretKey: string, options?: { requireReceipt?: boolean }): void;
  payment(id: string): FakePayment | undefined;
  /** The buyer paid: status succeeded, paid true. */
  succeed(id: string): FakePayment;
  /** YooKassa (or the bank) canceled it: status canceled with cancellation_details. */
  cancel(id: string, reason?: string, party?: string): FakePayment;
  /** The payment object as the API shows it. */
  paymentObject(id: string): Record<string, unknown>;
  /** A notification body exactly as YooKassa posts it; `object` overrides fields of the payment object (a forgery). */
  notificationBody(id: string, event?: string, object?: Record<string, unknown>): Record<string, unknown>;
  /** POSTs the notification to `url` as YooKassa does. The event defaults to the payment's status. */
  notify(url: string, id: string, event?: string, object?: Record<string, unknown>): Promise<Response>;
  /** Calls matching method and path (a substring) so far. */
  count(method?: string, path?: string): number;
  /** The next matching call(s) answer `failure` instead. */
  failNext(failure: FailureSpec): void;
  /** Saved methods of every shop, by id. */
  readonly methods: Map<string, FakeSavedMethod>;
  /** The next autopayments (payment_method_id) end as scripted, one outcome each, in order; then they succeed. */
  scriptCharges(...outcomes: FakeChargeOutcome[]): void;
  /** The holder revoked the method (or the bank closed the card): saved false, charges canceled permission_revoked. */
  revokeMethod(id: string): void;
  /** Forgets payments, keys, failures and calls; shops stay. */
  reset(): void;
  close(): Promise<void>;
}

interface Shop {
  secretKey: string;
  requireReceipt: boolean;
}

interface StoredAnswer {
  bodyHash: string;
  status: number;
  body: unknown;
}

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

const ERROR_DESCRIPTIONS: Record<number, [code: string, description: string]> = {
  400: ['invalid_request', 'Invalid request'],
  401: ['invalid_credentials', 'Authentication by given credentials failed'],
  403: ['forbidden', 'Operation is forbidden for this shop'],
  404: ['not_found', 'Incorrect payment_id. Payment doesn\u2019t exist or access denied. Specify the payment ID created in your store.'],
  429: ['too_many_requests', 'Too many requests. Please repeat your request later'],
  500: ['internal_server_error', 'Internal server error. Request processing result is unknown. Repeat the request with the same Idempotence-Key'],
};

function errorBody(status: number, description?: string, parameter?: string, code?: string) {
  const [defaultCode, defaultDescription] = ERROR_DESCRIPTIONS[status] ?? ERROR_DESCRIPTIONS[status >= 500 ? 500 : 400]!;
  return {
    type: 'error',
    id: randomUUID(),
    code: code ?? defaultCode,
    description: description ?? defaultDescription,
    ...(parameter ? { parameter } : {}),
  };
}

const invalid = (description: string, parameter?: string) => new HttpAnswer(400, errorBody(400, description, parameter));

/** YooKassa payment ids look like 2f3b588d-000f-5000-8000-1d6e87c7fbde. */
function paymentId(): string {
  const hex = (bytes: number) => randomBytes(bytes).toString('hex');
  return `${hex(4)}-000f-5000-${Math.random() < 0.5 ? '8' : '9'}000-${hex(6)}`;
}

const AMOUNT_VALUE = /^\d{1,15}(\.\d{1,2})?$/;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function startFakeYookassa(): Promise<FakeYookassa> {
  const shops = new Map<string, Shop>();
  const payments = new Map<string, FakePayment>();
  /** Keyed by shop id + Idempotence-Key. */
  const keys = new Map<string, StoredAnswer>();
  const failures = new FailureQueue<FailureSpec>();
  const calls: RecordedCall[] = [];
  const methods = new Map<string, FakeSavedMethod>();
  const chargeOutcomes: FakeChargeOutcome[] = [];

  const server = startFakeServer(async (req) => {
    const url = new URL(req.url);
    const path = url.pathname.startsWith(FAKE_API_PREFIX) ? url.pathname.slice(FAKE_API_PREFIX.length) : url.pathname;
    const text = req.method === 'GET' ? '' : await req.text();
    const body = jsonOrText(text);
    const headers: Record<string, string> = {};
    req.headers.forEach((value, key) => {
      headers[key.toLowerCase()] = value;
    });
    const call: RecordedCall = { method: req.method, path, headers, body, shopId: null, status: 0 };
    calls.push(call);
    const answer = await handle(req.method, path, headers, text, body, call);
    call.status = answer.status;
    if (typeof answer.body === 'string') return new Response(answer.body, { status: answer.status });
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  });

  function takeFailure(method: string, path: string): FailureSpec | null {
    return failures.take((f) => (!f.method || f.method === method) && (!f.path || path.includes(f.path)));
  }

  async function handle(method: string, path: string, headers: Record<string, string>, text: string, body: unknown, call: RecordedCall): Promise<HttpAnswer> {
    const failure = takeFailure(method, path);
    if (failure && !failure.afterProcessing) return fail(failure);

    const shopId = authenticate(headers.authorization);
    call.shopId = shopId;
    let answer: HttpAnswer;
    if (!shopId) answer = new HttpAnswer(401, errorBody(401, undefined, 'Authorization'));
    else {
      try {
        answer = route(method, path, headers, text, body, shopId);
      } catch (error) {
        if (!(error instanceof HttpAnswer)) throw error;
        answer = error;
      }
    }
    return failure ? fail(failure) : answer;
  }

  async function fail(failure: FailureSpec): Promise<HttpAnswer> {
    if (failure.delayMs) await server.hold({ ms: failure.delayMs });
    return new HttpAnswer(failure.status, failure.body ?? errorBody(failure.status));
  }

  function authenticate(header: string | undefined): string | null {
    const encoded = header?.match(/^Basic\s+(\S+)$/i)?.[1];
    if (!encoded) return null;
    const decoded = Buffer.from(encoded, 'base64').toString();
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    const shopId = decoded.slice(0, colon);
    const shop = shops.get(shopId);
    return shop && shop.secretKey === decoded.slice(colon + 1) ? shopId : null;
  }

  function route(method: string, path: string, headers: Record<string, string>, text: string, body: unknown, shopId: string): HttpAnswer {
    if (method === 'POST' && path === '/payments') {
      const key = headers['idempotence-key'];
      if (!key) return invalid('Idempotence-Key header is missing', 'Idempotence-Key');
      if (key.length > 64) return invalid('Idempotence-Key is too long', 'Idempotence-Key');
      if (!(headers['content-type'] ?? '').includes('application/json')) return new HttpAnswer(415, errorBody(400, 'Content-Type must be application/json'));
      const bodyHash = createHash('sha256').update(text).digest('hex');
      const stored = keys.get(`${shopId}\n${key}`);
      if (stored) {
        return stored.bodyHash === bodyHash ? new HttpAnswer(stored.status, stored.body) : invalid('Idempotence key duplicated', 'Idempotence-Key');
      }
      const answer = createPayment(body, shopId);
      keys.set(`${shopId}\n${key}`, { bodyHash, status: answer.status, body: answer.body });
      return answer;
    }
    const m = path.match(/^\/payments\/([^/]+)$/);
    if (method === 'GET' && m) {
      const payment = payments.get(decodeURIComponent(m[1]!));
      if (!payment || payment.shopId !== shopId) return new HttpAnswer(404, errorBody(404, undefined, 'payment_id'));
      return new HttpAnswer(200, objectOf(payment));
    }
    return new HttpAnswer(404, errorBody(404, 'Unknown API method', 'path'));
  }

  function createPayment(body: unknown, shopId: string): HttpAnswer {
    if (!isObj(body)) return invalid('Request body must be a JSON object');
    const amount = body.amount;
    if (!isObj(amount) || typeof amount.value !== 'string' || !AMOUNT_VALUE.test(amount.value) || Number(amount.value) <= 0) {
      return invalid('Invalid amount value', 'amount.value');
    }
    if (typeof amount.currency !== 'string' || !/^[A-Z]{3}$/.test(amount.currency)) return invalid('Invalid currency', 'amount.currency');
    if (body.capture !== undefined && typeof body.capture !== 'boolean') return invalid('capture must be boolean', 'capture');
    if (body.save_payment_method !== undefined && typeof body.save_payment_method !== 'boolean')
      return invalid('save_payment_method must be boolean', 'save_payment_method');
    const autopayment = body.payment_method_id !== undefined;
    let method: FakeSavedMethod | undefined;
    if (autopayment) {
      method = typeof body.payment_method_id === 'string' ? methods.get(body.payment_method_id) : undefined;
      if (!method || method.shopId !== shopId) return invalid('Payment method with this id not found', 'payment_method_id');
      if (body.confirmation !== undefined) return invalid('An autopayment needs no confirmation', 'confirmation');
      if (body.save_payment_method !== undefined) return invalid('The payment method is already saved', 'save_payment_method');
    }
    const confirmation = autopayment ? { type: 'redirect', return_url: 'https://unused.invalid/' } : body.confirmation;
    if (!isObj(confirmation) || confirmation.type !== 'redirect') return invalid('Only redirect confirmation is supported here', 'confirmation.type');
    if (typeof confirmation.return_url !== 'string' || !/^https?:\/\//.test(confirmation.return_url)) {
      return invalid('return_url is required for redirect confirmation', 'confirmation.return_url');
    }
    if (body.description !== undefined && (typeof body.description !== 'string' || body.description.length > 128)) {
      return invalid('description must be up to 128 characters', 'description');
    }
    const metadata = body.metadata ?? {};
    if (!isObj(metadata) || Object.keys(metadata).length > 16) return invalid('metadata: up to 16 keys', 'metadata');
    for (const [k, v] of Object.entries(metadata)) {
      if (k.length > 32 || typeof v !== 'string' || v.length > 512) return invalid('metadata: keys up to 32 characters, string values up to 512', 'metadata');
    }
    const shop = shops.get(shopId)!;
    if (body.receipt !== undefined) {
      const problem = receiptProblem(body.receipt, amount as { value: string; currency: string });
      if (problem) return invalid(problem[0], problem[1]);
    } else if (shop.requireReceipt) {
      return invalid('Receipt is missing or illegal', 'receipt');
    }
    const id = paymentId();
    const payment: FakePayment = {
      id,
      shopId,
      status: 'pending',
      paid: false,
      amount: { value: amount.value, currency: amount.currency },
      ...(typeof body.description === 'string' ? { description: body.description } : {}),
      metadata: metadata as Record<string, string>,
      returnUrl: confirmation.return_url,
      confirmationUrl: `https://yoomoney.ru/checkout/payments/v2/contract?orderId=${id}`,
      createdAt: new Date().toISOString(),
      ...(body.receipt !== undefined ? { receipt: body.receipt } : {}),
      ...(body.save_payment_method === true ? { savePaymentMethod: true } : {}),
      ...(method ? { methodId: method.id } : {}),
    };
    payments.set(id, payment);
    if (method) {
      // No buyer to wait for: the bank answers at once.
      const outcome = chargeOutcomes.shift();
      if (!method.saved) payment.cancellationDetails = { party: 'yoo_money', reason: 'permission_revoked' };
      else if (outcome && 'cancel' in outcome) {
        payment.cancellationDetails = { party: outcome.cancel === 'permission_revoked' ? 'yoo_money' : 'card_issuer', reason: outcome.cancel };
        if (outcome.cancel === 'permission_revoked') method.saved = false;
      }
      if (payment.cancellationDetails) payment.status = 'canceled';
      else if (!(outcome && 'pending' in outcome)) {
        payment.status = 'succeeded';
        payment.paid = true;
        payment.capturedAt = new Date().toISOString();
      }
    }
    return new HttpAnswer(200, objectOf(payment));
  }

  /** What YooKassa checks of a receipt: a customer contact, sane lines, and lines adding up to the payment. */
  function receiptProblem(receipt: unknown, amount: { value: string; currency: string }): [string, string] | null {
    if (!isObj(receipt)) return ['Receipt is missing or illegal', 'receipt'];
    const customer = receipt.customer;
    if (!isObj(customer) || (typeof customer.email !== 'string' && typeof customer.phone !== 'string')) {
      return ['Receipt customer must have an email or a phone', 'receipt.customer'];
    }
    const items = receipt.items;
    if (!Array.isArray(items) || items.length === 0 || items.length > 100) return ['Receipt items are missing', 'receipt.items'];
    let totalMinor = 0;
    for (const [i, item] of items.entries()) {
      if (!isObj(item) || typeof item.description !== 'string' || item.description.length === 0 || item.description.length > 128) {
        return ['Receipt item description is illegal', `receipt.items[${i}].description`];
      }
      const quantity = Number(item.quantity);
      if ((typeof item.quantity !== 'string' && typeof item.quantity !== 'number') || !(quantity > 0)) {
        return ['Receipt item quantity is illegal', `receipt.items[${i}].quantity`];
      }
      const a = item.amount;
      if (!isObj(a) || typeof a.value !== 'string' || !AMOUNT_VALUE.test(a.value) || a.currency !== amount.currency) {
        return ['Receipt item amount is illegal', `receipt.items[${i}].amount`];
      }
      if (!Number.isInteger(item.vat_code) || (item.vat_code as number) < 1 || (item.vat_code as number) > 12) {
        return ['Receipt item vat_code is illegal', `receipt.items[${i}].vat_code`];
      }
      totalMinor += Math.round(Number(a.value) * 100 * quantity);
    }
    if (totalMinor !== Math.round(Number(amount.value) * 100)) return ['Receipt items sum does not match the payment amount', 'receipt.items'];
    return null;
  }

  function objectOf(p: FakePayment): Record<string, unknown> {
    const object: Record<string, unknown> = {
      id: p.id,
      status: p.status,
      amount: p.amount,
      ...(p.description !== undefined ? { description: p.description } : {}),
      recipient: { account_id: p.shopId, gateway_id: '2179531' },
      created_at: p.createdAt,
      test: true,
      paid: p.paid,
      refundable: p.status === 'succeeded',
      metadata: p.metadata,
    };
    if (p.status === 'pending' && !p.methodId) object.confirmation = { type: 'redirect', confirmation_url: p.confirmationUrl, return_url: p.returnUrl };
    if (p.status === 'succeeded') {
      const minor = Math.round(Number(p.amount.value) * 100);
      const fee = Math.round(minor * 0.035);
      object.captured_at = p.capturedAt;
      object.income_amount = { value: ((minor - fee) / 100).toFixed(2), currency: p.amount.currency };
      object.refunded_amount = { value: '0.00', currency: p.amount.currency };
      object.payment_method = {
        type: 'bank_card',
        id: p.id,
        saved: false,
        title: 'Bank card *4444',
        card: { first6: '555555', last4: '4444', expiry_month: '12', expiry_year: '2030', card_type: 'MasterCard' },
      };
      object.authorization_details = { rrn: '603668680243', auth_code: '000000', three_d_secure: { applied: false } };
    }
    const method = p.methodId ? methods.get(p.methodId) : undefined;
    if (method) object.payment_method = { type: 'bank_card', id: method.id, saved: method.saved, title: method.title, card: method.card };
    if (p.status === 'canceled' && p.cancellationDetails) object.cancellation_details = p.cancellationDetails;
    return object;
  }

  function mustFind(id: string): FakePayment {
    const payment = payments.get(id);
    if (!payment) throw new Error(`fake YooKassa: no payment ${id}`);
    return payment;
  }

  const eventFor = (p: FakePayment) => (p.status === 'pending' ? 'payment.waiting_for_capture' : `payment.${p.status}`);

  const fake: FakeYookassa = {
    url: `${server.origin}${FAKE_API_PREFIX}`,
    calls,
    get payments() {
      return [...payments.values()];
    },
    addShop(shopId, secretKey, options = {}) {
      shops.set(shopId, { secretKey, requireReceipt: options.requireReceipt ?? false });
    },
    payment: (id) => payments.get(id),
    succeed(id) {
      const p = mustFind(id);
      if (p.status === 'canceled') throw new Error('fake YooKassa: a canceled payment cannot succeed');
      p.status = 'succeeded';
      p.paid = true;
      p.capturedAt = new Date().toISOString();
      if (p.savePaymentMethod && !p.methodId) {
        // A method id of its own (YooKassa's may equal the first payment's): tests can tell the two apart.
        const id = paymentId();
        methods.set(id, {
          id,
          shopId: p.shopId,
          saved: true,
          title: 'Bank card *4477',
          card: { first6: '220220', last4: '4477', expiry_month: '09', expiry_year: '2029', card_type: 'Mir' },
        });
        p.methodId = id;
      }
      return p;
    },
    cancel(id, reason = 'expired_on_confirmation', party = 'yoo_money') {
      const p = mustFind(id);
      if (p.status === 'succeeded') throw new Error('fake YooKassa: a succeeded payment cannot be canceled');
      p.status = 'canceled';
      p.paid = false;
      p.cancellationDetails = { party, reason };
      return p;
    },
    paymentObject: (id) => objectOf(mustFind(id)),
    notificationBody(id, event, object = {}) {
      const p = mustFind(id);
      return { type: 'notification', event: event ?? eventFor(p), object: { ...objectOf(p), ...object } };
    },
    notify(url, id, event, object) {
      return fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'YooKassa.Notifications' },
        body: JSON.stringify(fake.notificationBody(id, event, object)),
      });
    },
    count(method, path) {
      return calls.filter((c) => (!method || c.method === method) && (!path || c.path.includes(path))).length;
    },
    failNext(failure) {
      failures.add({ ...failure }, failure.times ?? 1);
    },
    methods,
    scriptCharges(...outcomes) {
      chargeOutcomes.push(...outcomes);
    },
    revokeMethod(id) {
      const method = methods.get(id);
      if (!method) throw new Error(`fake YooKassa: no saved method ${id}`);
      method.saved = false;
    },
    reset() {
      methods.clear();
      chargeOutcomes.length = 0;
      payments.clear();
      keys.clear();
      failures.clear();
      calls.length = 0;
    },
    close: () => server.close(),
  };
  return fake;
}
