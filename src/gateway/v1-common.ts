// Pieces every billed /v1 route shares with chat: reading the JSON body under the limit, sanitising the
// token counts an upstream reports, mapping an upstream's refusal, and Idempotency-Key handling. Kept in
// one place so chat, embeddings and responses answer the same request the same way.
import { readBodyText } from '../http/body';
import { AppError, errorCodes } from '../http/errors';
import { assertJsonDepth } from '../http/json';
import { errorMessages } from '../http/messages';
import { gatewayMessages } from './texts';
import type { Logger } from '../logger';
import type { ModelPrice, PriceBook } from '../pricing/prices';
import type { Billing, Reservation, UsageFacts, UsageStatus } from './billing';
import type { Idempotency, IdempotencyOwner } from './idempotency';
import { faultEvidence, upstreamFault, type UpstreamFault } from './upstream-fault';
import { ABORT_CLIENT_CLOSED, ABORT_TIMEOUT, classifyFetchFailure, upstreamErrorInfo, type UpstreamFailureKind } from './upstream';

/** An upstream's error body read at most: an error message is a few hundred bytes. */
export const ERROR_BODY_BYTES = 64 * 1024;

/** Far beyond any real answer, within what bigint columns and exact bigint money hold. */
const MAX_REPORTED_TOKENS = 1e12;

/** A reported token count as a whole number: anything not a finite non-negative number counts as 0. */
export function tokenCount(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.trunc(n), MAX_REPORTED_TOKENS);
}

/** The body as text and as a JSON object; 413 over the limit, 400 when it is not a JSON object. */
export async function readJsonObject(request: Request, bodyLimitBytes: number): Promise<{ text: string; json: Record<string, unknown> }> {
  // A declared length within the limit bounds the body already: read it natively, without the JS stream
  // that counting while reading needs (bench/RESULTS.md: it cost a ReadableStream per request).
  const declared = request.headers.get('content-length');
  const text = declared !== null && /^\d+$/.test(declared) && Number(declared) <= bodyLimitBytes ? await request.text() : await readBodyText(request, bodyLimitBytes);
  assertJsonDepth(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError('invalid_request_error', errorMessages.malformedJson, { code: errorCodes.invalidJson });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new AppError('invalid_request_error', 'Тело запроса должно быть JSON-объектом');
  }
  return { text, json: json as Record<string, unknown> };
}

/**
 * The model a /v1 request is priced at and sent as (PriceBook.resolve): the id that was priced, with its
 * price; a variant without a price of its own, or an unpriced model under UNPRICED_MODELS=refuse, is
 * 400 model_not_found before anything is reserved or sent.
 */
export function pricedModel(prices: Pick<PriceBook, 'resolve'>, requested: string): { model: string; price: ModelPrice } {
  const resolved = prices.resolve(requested);
  if (resolved.kind === 'priced') return resolved;
  const shown = requested.trim().slice(0, 200);
  throw new AppError(
    'invalid_request_error',
    resolved.kind === 'variant_unlisted' ? gatewayMessages.modelVariantUnlisted(shown, resolved.base) : gatewayMessages.modelUnpriced(shown),
    { param: 'model', code: errorCodes.modelNotFound },
  );
}

/** The upstream's retry-after, when it sent a usable one (whole seconds). */
function retryAfterOf(response: Response): Record<string, string> {
  const value = response.headers.get('retry-after')?.trim();
  return value && /^\d{1,6}$/.test(value) ? { 'retry-after': value } : {};
}

export interface UpstreamRejection {
  /** How the usage row records it. */
  status: UsageStatus;
  /** The usage row's error text. */
  detail: string;
  /** What the client is told. */
  error: AppError;
  /** Whose fault it is (upstream-fault.ts): what, if anything, counts against the provider. */
  fault: UpstreamFault;
}

/**
 * What a non-2xx upstream answer means for the client: a 4xx to its request (a moderation refusal
 * included) passes through with the upstream's status, message, param and code; the operator's account
 * problems and 5xx become 502. Whose fault it is decides what counts against the provider (upstream-fault.ts).
 */
export async function readUpstreamRejection(response: Response, logger: Logger, requestId: string, redact: (text: string) => string): Promise<UpstreamRejection> {
  let text = '';
  try {
    text = await readUpstreamText(response, ERROR_BODY_BYTES);
  } catch {
    // The error body was lost (or is no error message: far too long); the status still tells what happened.
  }
  // Taken out before the message goes anywhere: the client, the usage row and the log.
  const redacted = redact(text);
  const info = upstreamErrorInfo(redacted);
  const fault = upstreamFault(response.status, faultEvidence(redacted));
  if (fault === 'account' || fault === 'unaffordable') {
    // The client hears 502 and the operator reads the detail in the log.
    if (fault === 'account') {
      logger.error('the upstream refused the operator’s credentials or account', {
        requestId,
        status: response.status,
        upstreamMessage: info?.message.slice(0, 500) ?? null,
      });
    }
    return {
      status: 'upstream_error',
      detail:
        fault === 'account'
          ? `upstream refused the operator's account (status ${response.status})`
          : `upstream account cannot afford this request (status ${response.status})`,
      error: new AppError('upstream_error'),
      fault,
    };
  }
  if (response.status >= 400 && response.status < 500 && response.status !== 408) {
    return {
      status: 'upstream_rejected',
      detail: info?.message.slice(0, 500) ?? `status ${response.status}`,
      error: AppError.passthrough(
        response.status,
        info?.message ?? `Сервис модели отклонил запрос (статус ${response.status})`,
        info?.type ?? 'invalid_request_error',
        // The upstream's own rate limit: its retry-after is the wait the client should keep.
        { param: info?.param ?? null, code: info?.code ?? null, headers: retryAfterOf(response) },
      ),
      fault,
    };
  }
  return {
    status: 'upstream_error',
    detail: info?.message.slice(0, 500) ?? `status ${response.status}`,
    error: new AppError('upstream_error'),
    fault,
  };
}

/**
 * The API key a key's own things (its Idempotency-Keys, the responses it stored) are kept under: itself
 * when it is key-scoped, none (the whole account's) when it is account-scoped (keys/scope.ts).
 */
export function ownKeyId(key: { keyId: string; scope: 'key' | 'account' }): string | null {
  return key.scope === 'account' ? null : key.keyId;
}

/**
 * Runs a /v1 request under its Idempotency-Key, if it has one: a repeat gets the stored answer (or 409),
 * a failure frees the key for the client's retry, and a whole answer is kept for replays.
 */
export async function withIdempotency(
  deps: { idempotency?: Idempotency; logger: Logger },
  request: Request,
  call: { owner: IdempotencyOwner; text: string; requestId: string; stream: boolean },
  run: () => Promise<Response>,
): Promise<Response> {
  const { idempotency, logger } = deps;
  const idempotencyKey = request.headers.get('idempotency-key');
  if (idempotencyKey === null || !idempotency) return run();
  const start = await idempotency.begin(call.owner, idempotencyKey, call.text, call.requestId, call.stream);
  if (start.kind === 'replay') return start.response;
  let response: Response;
  try {
    response = await run();
  } catch (error) {
    await idempotency.release(call.owner, idempotencyKey).catch((e) => logger.warn('could not free an idempotency key', { error: e }));
    throw error;
  }
  const contentType = response.headers.get('content-type');
  const stream = (contentType ?? '').includes('text/event-stream');
  // A whole answer is kept for replays; a stream only as "done" (a repeat gets 409).
  const stored = stream ? null : await response.clone().text();
  await idempotency
    .complete(call.owner, idempotencyKey, { status: response.status, body: stored, contentType })
    .catch((error) => logger.warn('could not store an idempotent answer', { error, requestId: call.requestId }));
  return response;
}

/** How often the upstream calls in flight are looked over: a timeout fires, and a client gone is seen, this late at most. */
const UPSTREAM_SWEEP_MS = 50;

interface WatchedCall {
  abort: AbortController;
  client: AbortSignal | null;
  /** performance.now() past which the upstream has been silent too long. */
  deadline: number;
}

/**
 * Every upstream call in flight in this process, looked over by one timer instead of a timer and an abort
 * listener each: creating, clearing and firing those was ~3 % of a plain request's CPU, and a stream
 * moves its deadline with every chunk. The timer runs only while calls are in flight.
 */
const watched = new Set<WatchedCall>();
let sweeper: ReturnType<typeof setInterval> | null = null;

function sweepUpstreamCalls() {
  if (watched.size === 0) {
    clearInterval(sweeper!);
    sweeper = null;
    return;
  }
  const now = performance.now();
  for (const call of watched) {
    if (call.client?.aborted) {
      watched.delete(call);
      call.abort.abort(ABORT_CLIENT_CLOSED);
    } else if (now >= call.deadline) {
      watched.delete(call);
      call.abort.abort(ABORT_TIMEOUT);
    }
  }
}

/**
 * One upstream call's cancellation: the client leaving aborts it, and so does silence longer than the
 * upstream timeout (restartable, so a stream is timed per chunk, not as a whole), both within
 * UPSTREAM_SWEEP_MS. cleanup() when the call is over; a call nobody cleans up leaves the sweep at its
 * deadline at the latest.
 */
export function upstreamCall(clientSignal: AbortSignal | null, timeoutMs: number) {
  const abort = new AbortController();
  const call: WatchedCall = { abort, client: clientSignal, deadline: performance.now() + timeoutMs };
  watched.add(call);
  if (!sweeper) {
    sweeper = setInterval(sweepUpstreamCalls, UPSTREAM_SWEEP_MS);
    sweeper.unref?.();
  }
  let onClientGone: (() => void) | null = null;
  return {
    abort,
    signal: abort.signal,
    /**
     * The answer has come and the client times the rest: the call leaves the sweep, which would otherwise
     * hold it for as long as nothing ends it, and a client leaving still aborts it, through a listener that
     * lives as long as the request does (a rare path: a stored response fetched back).
     */
    stopTimer() {
      if (!watched.delete(call) || !clientSignal) return;
      onClientGone = () => abort.abort(ABORT_CLIENT_CLOSED);
      clientSignal.addEventListener('abort', onClientGone, { once: true });
    },
    /** The upstream spoke: its silence is timed from now. */
    restartTimer() {
      call.deadline = performance.now() + timeoutMs;
    },
    cleanup() {
      watched.delete(call);
      if (onClientGone) clientSignal?.removeEventListener('abort', onClientGone);
    },
  };
}

/** A fetch of the upstream that failed before an answer: how it is recorded and what the client hears. */
export function fetchFailure(error: unknown, signal: AbortSignal): UpstreamRejection & { kind: UpstreamFailureKind } {
  const kind = classifyFetchFailure(error, signal);
  if (kind === 'timeout') {
    return { kind, status: 'upstream_timeout', detail: 'no response in time', error: new AppError('upstream_timeout'), fault: 'trouble' };
  }
  if (kind === 'client_closed') {
    return {
      kind,
      status: 'client_closed',
      detail: 'client closed before the upstream answered',
      error: new AppError('invalid_request_error', 'Клиент закрыл соединение'),
      fault: 'client',
    };
  }
  return {
    kind,
    status: 'upstream_error',
    detail: error instanceof Error ? error.message.slice(0, 200) : 'fetch failed',
    error: new AppError('upstream_error'),
    fault: 'trouble',
  };
}

/** Gives a reservation back in full and records why (the request never got a billable answer). */
export type FailureRecorder = (status: UsageStatus, error: string, upstreamStatus?: number | null) => void;

/** What a usage row of this request says whatever its outcome: who, which key, which route and model. */
export type RequestFacts = Omit<
  UsageFacts,
  'promptTokens' | 'completionTokens' | 'totalTokens' | 'status' | 'usageSource' | 'upstreamStatus' | 'error' | 'durationMs'
>;

/** An upstream answer (not a stream) longer than UPSTREAM_MAX_BODY_BYTES: `bytes` were read before the read stopped. */
export class UpstreamAnswerTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`answer over UPSTREAM_MAX_BODY_BYTES (${bytes} bytes read)`);
  }
}

/**
 * The text of an upstream answer that is not a stream, read up to `maxBytes`: one host's 100 MB body
 * must not take the process's memory (every copy of it is held at once: bytes, text, the parse). Past the
 * limit the read stops and UpstreamAnswerTooLarge is thrown. A declared length within it (of a body not
 * compressed) is read whole at once: HTTP framing holds the body to it.
 */
export async function readUpstreamText(response: Response, maxBytes: number): Promise<string> {
  // A compressed body's declared length is not what it decompresses to.
  const declared = response.headers.has('content-encoding') ? Number.NaN : Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared <= maxBytes || !response.body) return response.text();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new UpstreamAnswerTooLarge(bytes);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

/**
 * An answer over UPSTREAM_MAX_BODY_BYTES: billed for what it had generated by the time the read stopped
 * (the bytes read, as oversized stream events are), recorded as an upstream error, and answered 502.
 */
export function answerTooLarge(
  deps: { billing: Pick<Billing, 'settle'>; logger: Logger },
  reservation: Reservation,
  facts: RequestFacts & { upstreamStatus: number; durationMs: number },
  tokens: { promptTokens: number; completionTokens: number },
  tooLarge: UpstreamAnswerTooLarge,
): AppError {
  deps.logger.warn('the upstream answer was over UPSTREAM_MAX_BODY_BYTES', { requestId: facts.requestId, bytes: tooLarge.bytes });
  settleAnswer(deps.billing, deps.logger, reservation, {
    ...facts,
    ...tokens,
    totalTokens: tokens.promptTokens + tokens.completionTokens,
    status: 'upstream_error',
    usageSource: 'tokenizer',
    error: tooLarge.message,
  });
  return new AppError('upstream_error', gatewayMessages.upstreamAnswerTooLarge);
}

/**
 * Reads an upstream answer that is not a stream, whole, and ends the upstream call. One over
 * UPSTREAM_MAX_BODY_BYTES is billed for `tooLargeTokens` of the bytes read and refused (answerTooLarge);
 * a body lost on the way gives the reservation back; either throws the client's error.
 */
export async function readWholeAnswer(
  response: Response,
  call: { signal: AbortSignal; cleanup: () => void },
  ctx: {
    billing: Pick<Billing, 'settle'>;
    logger: Logger;
    reservation: Reservation;
    base: RequestFacts;
    started: number;
    fail: FailureRecorder;
    maxBytes: number;
    tooLargeTokens: (bytes: number) => { promptTokens: number; completionTokens: number };
  },
): Promise<string> {
  try {
    return await readUpstreamText(response, ctx.maxBytes);
  } catch (error) {
    if (error instanceof UpstreamAnswerTooLarge) {
      throw answerTooLarge(
        ctx,
        ctx.reservation,
        { ...ctx.base, upstreamStatus: response.status, durationMs: Math.round(performance.now() - ctx.started) },
        ctx.tooLargeTokens(error.bytes),
        error,
      );
    }
    const failure = fetchFailure(error, call.signal);
    ctx.fail(failure.kind === 'unreachable' ? 'upstream_dropped' : failure.status, 'body lost', response.status);
    throw failure.error;
  } finally {
    call.cleanup();
  }
}

/**
 * Settles an answer, and says so in the log when it cost more than was set aside for it: the completion
 * cap went upstream with the request, so only an upstream that ignored it gets here. It is billed in full
 * all the same (what the reservation does not cover comes from the balance).
 */
export function settleAnswer(billing: Pick<Billing, 'settle'>, logger: Logger, reservation: Reservation, facts: UsageFacts): { costNano: bigint } {
  const settled = billing.settle(reservation, facts);
  if (settled.costNano > reservation.amountNano) {
    logger.warn('an answer cost more than its reservation: the upstream went past the completion cap', {
      requestId: facts.requestId,
      model: facts.model,
      completionTokens: facts.completionTokens,
      reservedNano: reservation.amountNano,
      costNano: settled.costNano,
    });
  }
  return settled;
}

/** The FailureRecorder of one request: its reservation back in full, a usage row of no tokens saying why. */
export function failureRecorder(billing: Pick<Billing, 'release'>, reservation: Reservation, base: RequestFacts, started: number): FailureRecorder {
  return (status, error, upstreamStatus = null) =>
    billing.release(reservation, {
      ...base,
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      status,
      usageSource: 'none',
      upstreamStatus,
      error,
      durationMs: Math.round(performance.now() - started),
    });
}
