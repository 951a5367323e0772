// POST /v1/chat/completions: key → reservation → upstream → bytes to the client as they come → settlement.
import type { Config } from '../config';
import { bearerToken } from '../http/bearer';
import { readBodyText } from '../http/body';
import { AppError, describeZodError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { requestIdOf } from '../http/request-id';
import type { Logger } from '../logger';
import type { KeyLimitRef } from '../keys/limits';
import type { KeyVerifier } from '../keys/verifier';
import type { PriceBook } from '../pricing/prices';
import type { Billing, Reservation, UsageFacts, UsageStatus } from './billing';
import type { RateLimiter } from './rate-limit';
import { chatRequestSchema, type ChatRequest } from './request';
import { createSseMeter } from './sse';
import { countTextTokens, estimatePromptTokens, reservePromptTokens } from './tokens';
import {
  ABORT_CLIENT_CLOSED,
  ABORT_TIMEOUT,
  classifyFetchFailure,
  upstreamErrorInfo,
  type Upstream,
} from './upstream';
import { createUsageFilter } from './usage-filter';

export interface ChatHandlerDeps {
  config: Pick<Config, 'bodyLimitBytes' | 'upstreamTimeoutMs' | 'tokenPriceNano' | 'reserveCompletionTokens'>;
  verifier: KeyVerifier;
  prices: PriceBook;
  billing: Billing;
  upstream: Upstream;
  rateLimiter: RateLimiter | null;
  logger: Logger;
}

/** Who pays for a completion and under which name it is recorded. */
export interface Payer {
  userId: string;
  apiKeyId: string | null;
  agentId: string | null;
  /** The key's own spend limit, when it has one. */
  keyLimit?: KeyLimitRef | null;
}

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

/** Far beyond any real answer, within what bigint columns and exact bigint money hold. */
const MAX_REPORTED_TOKENS = 1e12;

/** A reported token count as a whole number: anything not a finite non-negative number counts as 0. */
function tokenCount(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.trunc(n), MAX_REPORTED_TOKENS);
}

function usageFacts(usage: Usage | null | undefined) {
  const prompt = tokenCount(usage?.prompt_tokens);
  const completion = tokenCount(usage?.completion_tokens);
  const total = usage?.total_tokens === undefined ? prompt + completion : tokenCount(usage.total_tokens);
  return { promptTokens: prompt, completionTokens: completion, totalTokens: Math.max(total, prompt + completion) };
}

function sseError(message: string, type: string): Uint8Array {
  return new TextEncoder().encode(`data: ${JSON.stringify({ error: { message, type } })}\n\n`);
}

const NOT_YET = Symbol('not yet');
/** A few microtask turns: long enough for a read of bytes already received to resolve, too short to wait for the network. */
const MICROTASK_TURNS = 4;

/** The read's result if it is already available, NOT_YET if it would have to wait for the upstream. */
function alreadySettled<T>(promise: Promise<T>): Promise<T | typeof NOT_YET> {
  let timer: Promise<typeof NOT_YET> = Promise.resolve(NOT_YET);
  for (let i = 1; i < MICROTASK_TURNS; i++) timer = timer.then((v) => v);
  return Promise.race([promise, timer]);
}

export function createChatHandler(deps: ChatHandlerDeps) {
  const { config, verifier, prices, billing, upstream, rateLimiter, logger } = deps;

  async function authenticate(request: Request) {
    const token = bearerToken(request.headers);
    if (!token) throw new AppError('unauthorized', errorMessages.missingCredential);
    const key = await verifier.resolve(token);
    if (!key) throw new AppError('unauthorized', errorMessages.invalidApiKey);
    if (!key.isActive) throw new AppError('forbidden', errorMessages.revokedApiKey);
    if (key.expiresAt !== null && key.expiresAt <= Date.now()) throw new AppError('unauthorized', errorMessages.expiredApiKey);
    if (key.userBlocked) throw new AppError('forbidden', errorMessages.accountBlocked);
    if (rateLimiter) {
      const decision = rateLimiter.check(key.keyId);
      if (!decision.allowed) {
        throw new AppError('rate_limit_exceeded', undefined, {
          headers: { 'retry-after': String(decision.retryAfterSeconds) },
        });
      }
    }
    return key;
  }

  async function parseBody(request: Request): Promise<{ text: string; body: ChatRequest }> {
    // A declared length within the limit bounds the body already: read it natively, without the JS stream
    // that counting while reading needs (bench/RESULTS.md: it cost a ReadableStream per request).
    const declared = request.headers.get('content-length');
    const text =
      declared !== null && /^\d+$/.test(declared) && Number(declared) <= config.bodyLimitBytes
        ? await request.text()
        : await readBodyText(request, config.bodyLimitBytes);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new AppError('invalid_request_error', errorMessages.malformedJson);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw new AppError('invalid_request_error', 'Тело запроса должно быть JSON-объектом');
    }
    const parsed = chatRequestSchema.safeParse(json);
    if (!parsed.success) throw new AppError('invalid_request_error', describeZodError(parsed.error));
    return { text, body: parsed.data };
  }

  /**
   * Runs one completion for a payer: reserve, forward, relay, settle. Shared by the /v1 route and the
   * assistants, so both bill the same way.
   */
  async function complete(
    payer: Payer,
    body: ChatRequest,
    originalText: string | null,
    requestId: string,
    clientSignal: AbortSignal | null,
  ): Promise<Response> {
    const started = performance.now();
    const stream = body.stream === true;
    const extra = body as { tools?: unknown; functions?: unknown };
    // Legacy `functions` are sent to the model as tools are, and cost prompt tokens the same way.
    const tools = extra.tools ?? extra.functions;
    // The reservation needs a bound, not a count; the count (the tokenizer) only when the upstream sends no usage.
    const promptReserve = reservePromptTokens(body.messages, tools);
    const promptEstimate = () => estimatePromptTokens(body.messages, tools);
    const completionCap = body.max_completion_tokens ?? body.max_tokens ?? config.reserveCompletionTokens;
    // Every one of the n choices may run to the cap, each at the model's completion price.
    const price = prices.priceOf(body.model);
    const reserveNano = prices.costOf(price, promptReserve, completionCap * (body.n ?? 1)).totalNano;
    const reservation = await billing.reserve(payer.userId, reserveNano, { price, key: payer.keyLimit ?? null });

    const base = {
      userId: payer.userId,
      apiKeyId: payer.apiKeyId,
      agentId: payer.agentId,
      requestId,
      model: body.model,
      stream,
    };
    const fail = (status: UsageStatus, error: string, upstreamStatus: number | null = null) =>
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

    // Streams always ask the upstream for usage; the client's own choice decides what it sees.
    const clientWantsUsage = body.stream_options?.include_usage === true;
    let upstreamText = originalText ?? JSON.stringify(body);
    if (stream && !clientWantsUsage) {
      upstreamText = JSON.stringify({ ...body, stream_options: { ...body.stream_options, include_usage: true } });
    }

    // reserve() may have waited for the settlement writer; a client gone meanwhile costs the upstream nothing.
    if (clientSignal?.aborted) {
      fail('client_closed', 'client closed before the upstream was asked');
      throw new AppError('invalid_request_error', 'Клиент закрыл соединение');
    }

    const abort = new AbortController();
    const onClientAbort = () => abort.abort(ABORT_CLIENT_CLOSED);
    clientSignal?.addEventListener('abort', onClientAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | null = setTimeout(() => abort.abort(ABORT_TIMEOUT), config.upstreamTimeoutMs);
    const stopTimer = () => {
      if (timer) clearTimeout(timer);
      timer = null;
    };
    const cleanup = () => {
      stopTimer();
      clientSignal?.removeEventListener('abort', onClientAbort);
    };

    let response: Response;
    try {
      response = await upstream.chatCompletions(upstreamText, abort.signal);
    } catch (error) {
      cleanup();
      const kind = classifyFetchFailure(error, abort.signal);
      if (kind === 'timeout') {
        fail('upstream_timeout', 'no response in time');
        throw new AppError('upstream_timeout');
      }
      if (kind === 'client_closed') {
        fail('client_closed', 'client closed before the upstream answered');
        throw new AppError('invalid_request_error', 'Клиент закрыл соединение');
      }
      fail('upstream_error', error instanceof Error ? error.message.slice(0, 200) : 'fetch failed');
      throw new AppError('upstream_error');
    }

    if (!response.ok) {
      let text = '';
      try {
        text = await response.text();
      } catch {
        // The error body was lost; the status still tells what happened.
      }
      cleanup();
      const info = upstreamErrorInfo(text);
      if (response.status >= 400 && response.status < 500 && response.status !== 408) {
        fail('upstream_rejected', info?.message.slice(0, 500) ?? `status ${response.status}`, response.status);
        throw AppError.passthrough(
          response.status,
          info?.message ?? `Сервис модели отклонил запрос (статус ${response.status})`,
          info?.type ?? 'invalid_request_error',
        );
      }
      fail('upstream_error', info?.message.slice(0, 500) ?? `status ${response.status}`, response.status);
      throw new AppError('upstream_error');
    }

    const isEventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    if (!isEventStream || !response.body) {
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        cleanup();
        const kind = classifyFetchFailure(error, abort.signal);
        fail(kind === 'timeout' ? 'upstream_timeout' : kind === 'client_closed' ? 'client_closed' : 'upstream_dropped', 'body lost');
        throw new AppError(kind === 'timeout' ? 'upstream_timeout' : 'upstream_error');
      }
      cleanup();
      let usage: Usage | null = null;
      let completionText = '';
      try {
        const parsed = JSON.parse(text) as { usage?: Usage; choices?: { message?: { content?: unknown } }[] };
        usage = parsed.usage ?? null;
        if (!usage) {
          completionText = (parsed.choices ?? [])
            .map((c) => (typeof c.message?.content === 'string' ? c.message.content : ''))
            .join('');
        }
      } catch {
        // An answer that is not JSON is relayed as it is and billed by our own count.
      }
      const counted = usage
        ? usageFacts(usage)
        : usageFacts({ prompt_tokens: promptEstimate(), completion_tokens: countTextTokens(completionText) });
      billing.settle(reservation, {
        ...base,
        ...counted,
        status: 'ok',
        usageSource: usage ? 'upstream' : 'tokenizer',
        upstreamStatus: response.status,
        durationMs: Math.round(performance.now() - started),
      });
      return new Response(text, {
        status: response.status,
        headers: { 'content-type': response.headers.get('content-type') ?? 'application/json' },
      });
    }

    return relayStream(response.body, {
      abort,
      cleanup,
      reservation,
      base,
      promptEstimate,
      filter: stream && !clientWantsUsage,
      started,
      restartTimer: () => {
        stopTimer();
        timer = setTimeout(() => abort.abort(ABORT_TIMEOUT), config.upstreamTimeoutMs);
      },
    });
  }

  async function relayStream(
    upstreamBody: ReadableStream<Uint8Array>,
    ctx: {
      abort: AbortController;
      cleanup: () => void;
      restartTimer: () => void;
      reservation: Reservation;
      base: Omit<UsageFacts, 'promptTokens' | 'completionTokens' | 'totalTokens' | 'status' | 'usageSource' | 'durationMs'>;
      promptEstimate: () => number;
      filter: boolean;
      started: number;
    },
  ): Promise<Response> {
    const meter = createSseMeter();
    const filter = ctx.filter ? createUsageFilter() : null;
    const reader = upstreamBody.getReader();
    let finished = false;

    const finish = (status: UsageStatus, error: string | null = null) => {
      if (finished) return;
      finished = true;
      ctx.cleanup();
      const fromUpstream = meter.usage !== null;
      const counted = fromUpstream
        ? usageFacts(meter.usage)
        : usageFacts({ prompt_tokens: ctx.promptEstimate(), completion_tokens: countTextTokens(meter.completionText) });
      billing.settle(ctx.reservation, {
        ...ctx.base,
        ...counted,
        status,
        usageSource: fromUpstream ? 'upstream' : 'tokenizer',
        upstreamStatus: 200,
        error,
        durationMs: Math.round(performance.now() - ctx.started),
      });
    };

    // A client that goes away stops the upstream at once and pays for what it was sent.
    ctx.abort.signal.addEventListener(
      'abort',
      () => {
        if (ctx.abort.signal.reason === ABORT_CLIENT_CLOSED) {
          reader.cancel().catch(() => {});
          finish('client_closed', 'client closed the stream');
        }
      },
      { once: true },
    );

    /** What the client gets of one upstream chunk (possibly nothing yet: the filter holds partial events). */
    const take = (value: Uint8Array): Uint8Array => {
      ctx.restartTimer();
      meter.push(value);
      return filter ? filter.push(value) : value;
    };
    /** The upstream ended the stream: bill it, and release what the filter still holds. */
    const ending = (): Uint8Array | null => {
      const rest = filter ? filter.end() : null;
      finish('ok');
      return rest && rest.byteLength > 0 ? rest : null;
    };
    /** The upstream broke off (dropped or timed out): bill what came, and tell the client with an SSE error event. */
    const broken = (error: unknown): Uint8Array[] => {
      const timedOut = ctx.abort.signal.reason === ABORT_TIMEOUT;
      const status: UsageStatus = timedOut ? 'upstream_timeout' : 'upstream_dropped';
      logger.warn('upstream stream ended abnormally', { requestId: ctx.base.requestId, status, error });
      const out: Uint8Array[] = [];
      if (filter) out.push(filter.end());
      out.push(
        sseError(
          timedOut ? errorMessages.upstreamTimeout : errorMessages.upstreamError,
          timedOut ? 'upstream_timeout' : 'upstream_error',
        ),
      );
      finish(status, error instanceof Error ? error.message.slice(0, 200) : 'stream failed');
      return out;
    };

    // Bytes that have already arrived are taken at once, without waiting for more: when that is the whole
    // answer (a short or cached completion), it goes out as one body instead of through a relay stream,
    // which costs far more per request. No byte waits for a later one either way.
    type ReadResult = Awaited<ReturnType<typeof reader.read>>;
    const head: Uint8Array[] = [];
    let next: Promise<ReadResult> | null = reader.read();
    let whole = false;
    try {
      let result = await next;
      for (;;) {
        if (result.done) {
          const rest = ending();
          if (rest) head.push(rest);
          whole = true;
          break;
        }
        const out = take(result.value);
        if (out.byteLength > 0) head.push(out);
        next = reader.read();
        const now = await alreadySettled(next);
        if (now === NOT_YET) break;
        result = now;
      }
    } catch (error) {
      if (!finished) head.push(...broken(error));
      whole = true;
    }
    if (whole) {
      const bytes = head.length === 1 ? head[0]! : Buffer.concat(head);
      return new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers: SSE_HEADERS });
    }

    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of head) controller.enqueue(part);
      },
      async pull(controller) {
        for (;;) {
          let chunk: ReadResult;
          try {
            chunk = await (next ?? reader.read());
            next = null;
          } catch (error) {
            next = null;
            if (finished) return;
            const tail = broken(error);
            try {
              for (const part of tail) controller.enqueue(part);
              controller.close();
            } catch {
              // The client is gone as well.
            }
            return;
          }
          if (chunk.done) {
            const rest = ending();
            if (rest) controller.enqueue(rest);
            controller.close();
            return;
          }
          const out = take(chunk.value);
          if (out.byteLength > 0) {
            controller.enqueue(out);
            return;
          }
        }
      },
      cancel() {
        ctx.abort.abort(ABORT_CLIENT_CLOSED);
      },
    });

    return new Response(body, { status: 200, headers: SSE_HEADERS });
  }

  return {
    complete,

    /** The /v1/chat/completions route. */
    async handle(request: Request): Promise<Response> {
      const key = await authenticate(request);
      const { text, body } = await parseBody(request);
      verifier.markUsed(key.keyId);
      return complete(
        {
          userId: key.userId,
          apiKeyId: key.keyId,
          agentId: null,
          keyLimit: key.limitReset !== null ? { keyId: key.keyId, limitReset: key.limitReset } : null,
        },
        body,
        text,
        requestIdOf(request),
        request.signal,
      );
    },
  };
}

export type ChatHandler = ReturnType<typeof createChatHandler>;
