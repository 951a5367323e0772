// POST /v1/chat/completions: key → reservation → upstream → bytes to the client as they come → settlement.
import type { Config } from '../config';
import { bearerToken } from '../http/bearer';
import { AppError, anthropicTypeOf, errorCodes, validationError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { accountBlockedMessage, keysMessages, type KeyLimitRef, type KeyVerifier, type MemberLimitRef } from '../keys';
import { requestIdOf } from '../http/request-id';
import type { Logger } from '../logger';
import type { PriceBook } from '../pricing/prices';
import type { Billing, Reservation } from './billing';
import { rememberRateStanding, type RateLimiter } from './rate-limit';
import { gatewayMessages } from './texts';
import { chatRequestSchema, plainChatRequest, upstreamChatText, type ChatRequest } from './request';
import { createSseMeter, generatedText } from './sse';
import { countTextTokens, estimatePromptTokens, reservePromptTokens } from './tokens';
import { type AnthropicHeaders, classifyFetchFailure, type Protocol, type Upstream } from './upstream';
import { chatAnswerOf } from './anthropic/chat-answer';
import { chatStreamOf } from './anthropic/chat-stream';
import { createMessagesMeter } from './anthropic/meter';
import { messagesAnswerOf } from './anthropic/messages-answer';
import { messagesRequestOf } from './anthropic/messages-request';
import { messagesStreamOf } from './anthropic/messages-stream';
import type { MessagesRequest } from './anthropic/schema';
import { messagesErrorEvent, wholeEvents } from './anthropic/sse-events';
import { readMessagesAnswer, withMessagesUsage } from './anthropic/answer-usage';
import { anthropicTokenCounts, chatUsageOf, type ChatUsage } from './anthropic/usage';
import { askRouted } from './routing/failover';
import type { Routing } from './routing/registry';
import { type Idempotency, withIdempotency } from './idempotency';
import { COST_HEADER, costText, withUsageCost } from './answer-cost';
import { relayStream, type StreamRelay } from './stream-relay';
import { failureRecorder, settleAnswer, type RequestFacts } from './settlement';
import { chatUsageCounts } from './usage-details';
import { readUpstreamText, UpstreamAnswerTooLarge } from './upstream-body';
import { ownKeyId, pricedModel, readJsonObject } from './v1-request';
import { answerTooLarge } from './whole-answer';
import { asksForCache } from './response-cache/request-key';
import type { ResponseCache } from './response-cache/serve';
import type { PayerGroups } from './price-group';

export interface ChatHandlerDeps {
  config: Pick<Config, 'bodyLimitBytes' | 'upstreamMaxBodyBytes' | 'upstreamTimeoutMs' | 'tokenPriceNano' | 'reserveCompletionTokens' | 'supportContact'>;
  verifier: KeyVerifier;
  prices: PriceBook;
  /** The payer's price group (price-group.ts). */
  priceGroups: PayerGroups;
  billing: Billing;
  /** The providers and routes a completion is sent through. */
  routing: Routing;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** Upstream timing and time to first token (metrics); optional. */
  observer?: ChatObserver;
  /** Idempotency-Key support on /v1 (absent: the header is ignored). */
  idempotency?: Idempotency;
  /** The response cache (absent: no request is cached). */
  responseCache?: ResponseCache;
}

export interface ChatObserver {
  /** `providerId`: the provider that was asked (absent only where no routing is involved). */
  upstreamResponded(status: number | 'network' | 'timeout', seconds: number, providerId?: string): void;
  /** A request left this provider, which failed it, for the next one. */
  failedOver?(providerId: string): void;
  upstreamDropped(): void;
  firstToken(endpoint: string, seconds: number): void;
}

/** A /v1/messages request beside its chat form: the client's own body and text, and its anthropic-* headers. */
export interface MessagesClient {
  body: MessagesRequest;
  text: string;
  headers: AnthropicHeaders;
}

/** Who pays for a completion and under which name it is recorded. */
export interface Payer {
  userId: string;
  apiKeyId: string | null;
  agentId: string | null;
  /** The key's own spend limit, when it has one. */
  keyLimit?: KeyLimitRef | null;
  /** Its creator's monthly limit in the key's organisation, when there is one. */
  memberLimit?: MemberLimitRef | null;
  /** The account's price group, when the key brought it; absent (an assistant's call): read from the account. */
  priceGroup?: string;
}

/** The caller of a /v1 route: its key pays, within the key's own spend limit when it has one. */
export function keyPayer(key: {
  userId: string;
  keyId: string;
  limitReset: KeyLimitRef['limitReset'] | null;
  memberLimit?: MemberLimitRef | null;
  priceGroup: string;
}): Payer {
  return {
    userId: key.userId,
    apiKeyId: key.keyId,
    agentId: null,
    keyLimit: key.limitReset !== null ? { keyId: key.keyId, limitReset: key.limitReset } : null,
    memberLimit: key.memberLimit ?? null,
    priceGroup: key.priceGroup,
  };
}

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

/** A chat usage object as a usage row counts it, the cache and reasoning parts included (usage-details.ts). */
const usageFacts = (usage: unknown) => chatUsageCounts(usage);

/** The usage object of a chat answer's text, when it has one that holds figures. */
function chatUsageInText(text: string): ChatUsage | null {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null ? chatUsageOf((parsed as { usage?: unknown }).usage) : null;
  } catch {
    return null;
  }
}

/**
 * Tokens for generated bytes too large to parse (an event over the meter's 1 MiB): one per two bytes, a
 * bound no tokenizer goes below for text (o200k averages about four bytes a token), so such an answer is
 * never cheaper than what it carried.
 */
export const oversizedTokens = (bytes: number) => Math.ceil(bytes / 2);

/** A 429's code names the limit that refused (its message says whether the key's or the account's). */
const RATE_LIMIT_CODES = { rpm: errorCodes.rpmExceeded, tpm: errorCodes.tpmExceeded, rpd: errorCodes.rpdExceeded } as const;

/** A meter for a stream whose rewrite reads it already (relayMessages). */
const IGNORED_TEXT = { push() {}, pushText() {} };

export function createChatHandler(deps: ChatHandlerDeps) {
  const { config, verifier, prices, priceGroups, billing, routing, rateLimiter, logger, observer, idempotency, responseCache } = deps;
  /** Streams being relayed: at the end of the shutdown grace period each is ended cleanly. */
  const openStreams = new Set<() => void>();
  /** Registers a running stream's shutdown ending; returns its removal. */
  const track = (end: () => void) => {
    openStreams.add(end);
    return () => openStreams.delete(end);
  };

  /** `token`: the key the client sent (default: its Bearer token; /v1/messages takes x-api-key too). */
  async function authenticate(request: Request, token: string | null = bearerToken(request.headers)) {
    if (!token) throw new AppError('unauthorized', errorMessages.missingCredential, { code: errorCodes.missingApiKey });
    const key = await verifier.resolve(token);
    if (!key) throw new AppError('unauthorized', keysMessages.invalidApiKey, { code: errorCodes.invalidApiKey });
    if (!key.isActive) throw new AppError('forbidden', keysMessages.revokedApiKey, { code: errorCodes.apiKeyRevoked });
    if (key.expiresAt !== null && key.expiresAt <= Date.now()) {
      throw new AppError('unauthorized', keysMessages.expiredApiKey, { code: errorCodes.apiKeyExpired });
    }
    if (key.userBlocked) throw new AppError('forbidden', accountBlockedMessage(config.supportContact), { code: errorCodes.accountBlocked });
    const standing = await rateLimiter.check(key.keyId, key.userId, key.rates);
    // The server puts the x-ratelimit-* headers on whatever this request is answered with.
    rememberRateStanding(request, standing);
    if (standing.refused) {
      const refused = standing.refused;
      throw new AppError('rate_limit_exceeded', gatewayMessages.rateLimited(refused, refused.limit, refused.retryAfterSeconds), {
        code: RATE_LIMIT_CODES[refused.name],
        headers: { 'retry-after': String(refused.retryAfterSeconds) },
      });
    }
    return key;
  }

  async function parseBody(request: Request): Promise<{ text: string; body: ChatRequest }> {
    const { text, json } = await readJsonObject(request, config.bodyLimitBytes);
    const plain = plainChatRequest(json);
    if (plain) return { text, body: plain };
    const parsed = chatRequestSchema.safeParse(json);
    if (!parsed.success) throw validationError(parsed.error);
    return { text, body: parsed.data };
  }

  /**
   * Runs one completion for a payer: reserve, forward, relay, settle. Shared by the /v1 route and the
   * assistants, so both bill the same way.
   */
  async function complete(
    payer: Payer,
    requested: ChatRequest,
    requestedText: string | null,
    requestId: string,
    clientSignal: AbortSignal | null,
    messages: MessagesClient | null = null,
  ): Promise<Response> {
    const started = performance.now();
    /** The client's protocol: answers are brought into it before they are metered and relayed. */
    const client: Protocol = messages ? 'anthropic' : 'openai';
    // One model id, one price (the payer's group's): the id that was priced is the one recorded and sent upstream.
    // A key brings its group (no await on the hot path); an assistant's call reads its owner's.
    const group = priceGroups(payer);
    const { model, price } = pricedModel(prices, requested.model, typeof group === 'string' ? group : await group);
    const body = model === requested.model ? requested : { ...requested, model };
    const originalText = model === requested.model ? requestedText : null;
    const stream = body.stream === true;
    const extra = body as { tools?: unknown; functions?: unknown };
    // Legacy `functions` are sent to the model as tools are, and cost prompt tokens the same way.
    const tools = extra.tools ?? extra.functions;
    // The reservation needs a bound, not a count; the count (the tokenizer) only when the upstream sends no usage.
    const promptReserve = reservePromptTokens(body.messages, tools);
    const promptEstimate = () => estimatePromptTokens(body.messages, tools);
    const namedCap = body.max_completion_tokens ?? body.max_tokens;
    const completionCap = namedCap ?? config.reserveCompletionTokens;
    // Every one of the n choices may run to the cap, each at the model's completion price. A prompt that marks
    // blocks for the provider's cache (Anthropic's cache_control) may be written to it, above the prompt price:
    // its bound is every prompt token at the cache-write price.
    const marksCache = (price.cacheWriteNanoPerMillion ?? 0n) > price.promptNanoPerMillion && (messages?.text ?? requestedText)?.includes('"cache_control"') === true;
    const reserveNano = prices.costOf(price, promptReserve, completionCap * (body.n ?? 1), 0, marksCache ? promptReserve : 0).totalNano;

    const base: RequestFacts = {
      userId: payer.userId,
      apiKeyId: payer.apiKeyId,
      agentId: payer.agentId,
      requestId,
      model: body.model,
      stream,
    };
    if (messages) base.endpoint = 'messages';
    const reservation = await billing.reserve(payer.userId, reserveNano, { price, key: payer.keyLimit ?? null, member: payer.memberLimit ?? null, request: base });
    const fail = failureRecorder(billing, reservation, base, started);

    // Streams always ask the upstream for usage; the client's own choice decides what it sees.
    const clientWantsUsage = body.stream_options?.include_usage === true;
    // A request without a cap goes with the one reserved for: a well-behaved upstream then never answers past it.
    const chatText = () =>
      upstreamChatText(originalText, body, {
        streamUsage: stream && !clientWantsUsage,
        completionCap: namedCap == null ? completionCap : null,
      });
    // The body in the client's protocol (a Messages client's own bytes, its model priced as asked), and in
    // the other one, translated, only when a provider speaking it is tried.
    const clientText = messages ? (model === messages.body.model ? messages.text : JSON.stringify({ ...messages.body, model })) : chatText();
    let otherText: string | null = null;
    const bodyIn = (): string => {
      otherText ??= messages ? chatText() : JSON.stringify(messagesRequestOf(body, completionCap));
      return otherText;
    };
    const anthropicHeaders = messages?.headers ?? null;

    // reserve() may have waited for the settlement writer; a client gone meanwhile costs the upstream nothing.
    if (clientSignal?.aborted) {
      fail('client_closed', 'client closed before the upstream was asked');
      throw new AppError('invalid_request_error', 'Клиент закрыл соединение');
    }

    // The route's providers in turn until one answers; a 4xx to the request passes through.
    const { response, call, upstream } = await askRouted({
      routing,
      model: body.model,
      body: clientText,
      protocol: client,
      bodyIn,
      send: (provider, text, signal) =>
        provider.protocol === 'anthropic' ? provider.messages(text, signal, anthropicHeaders) : provider.chatCompletions(text, signal),
      clientSignal,
      fail,
      facts: base,
      logger,
      requestId,
      observer,
    });
    const { abort, cleanup } = call;

    const isEventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    if (!isEventStream || !response.body) {
      let text: string;
      try {
        text = await readUpstreamText(response, config.upstreamMaxBodyBytes);
      } catch (error) {
        cleanup();
        if (error instanceof UpstreamAnswerTooLarge) {
          throw answerTooLarge(
            { billing, logger },
            reservation,
            { ...base, upstreamStatus: response.status, durationMs: Math.round(performance.now() - started) },
            { promptTokens: promptEstimate(), completionTokens: oversizedTokens(error.bytes) },
            error,
          );
        }
        const kind = classifyFetchFailure(error, abort.signal);
        fail(kind === 'timeout' ? 'upstream_timeout' : kind === 'client_closed' ? 'client_closed' : 'upstream_dropped', 'body lost', response.status);
        throw new AppError(kind === 'timeout' ? 'upstream_timeout' : 'upstream_error');
      }
      cleanup();
      // A provider of the other protocol: its answer in the client's (a body that is none is relayed as it is).
      // An openai provider's answer to a Messages client is counted from its own chat usage (its reasoning
      // tokens too, which Messages' usage cannot carry), before the translation.
      const providerChatUsage = messages && upstream.protocol !== client ? chatUsageInText(text) : null;
      if (upstream.protocol !== client) text = (messages ? messagesAnswerOf(text, requested.model) : chatAnswerOf(text, requested.model)) ?? text;
      let counted: ReturnType<typeof usageFacts>;
      let reported: boolean;
      if (messages) {
        const read = readMessagesAnswer(text);
        counted = providerChatUsage
          ? usageFacts(providerChatUsage)
          : read.usage
            ? anthropicTokenCounts(read.usage)
            : usageFacts({ prompt_tokens: promptEstimate(), completion_tokens: read.completionTokens });
        reported = read.usage !== null;
      } else {
        let usage: Usage | null = null;
        let completionTokens = 0;
        try {
          const parsed = JSON.parse(text) as { usage?: Usage; choices?: { message?: unknown }[] };
          usage = parsed.usage && typeof parsed.usage === 'object' ? parsed.usage : null;
          if (!usage) {
            // Everything generated counts: text, refusals, reasoning, tool-call arguments, of every choice.
            const choices = Array.isArray(parsed.choices) ? parsed.choices : [];
            completionTokens = countTextTokens(choices.map((c) => generatedText(c?.message)).join(''));
          }
        } catch {
          // An answer that is not JSON is relayed as it is and billed by its length, as generated text.
          completionTokens = countTextTokens(text);
        }
        counted = usage ? usageFacts(usage) : usageFacts({ prompt_tokens: promptEstimate(), completion_tokens: completionTokens });
        reported = usage !== null;
      }
      const { costNano } = settleAnswer(billing, logger, reservation, {
        ...base,
        ...counted,
        status: 'ok',
        usageSource: reported ? 'upstream' : 'tokenizer',
        upstreamStatus: response.status,
        durationMs: Math.round(performance.now() - started),
      });
      const cost = costText(costNano);
      const answer = messages
        ? withMessagesUsage(text, counted)
        : withUsageCost(text, cost, {
            prompt_tokens: counted.promptTokens,
            completion_tokens: counted.completionTokens,
            total_tokens: counted.totalTokens,
          });
      return new Response(answer, {
        status: response.status,
        headers: { 'content-type': response.headers.get('content-type') ?? 'application/json', [COST_HEADER]: cost },
      });
    }

    if (messages) return relayMessages(response.body, { upstream, call, base, started, reservation, model: requested.model, promptEstimate });
    const meter = createSseMeter();
    return relayStream(response.body, {
      endpoint: 'chat',
      // An anthropic provider's stream, in chat's events.
      rewrite: upstream.protocol === client ? null : chatStreamOf(requested.model),
      base,
      started,
      billing,
      reservation,
      meter,
      reported: () => (meter.usage ? usageFacts(meter.usage) : null),
      estimated: () => usageFacts({ prompt_tokens: promptEstimate(), completion_tokens: meter.completionTokens + oversizedTokens(meter.oversizedBytes) }),
      filter: stream ? (clientWantsUsage ? 'cost' : 'strip') : null,
      redact: upstream.redact,
      call,
      tooLargeStatus: 'upstream_dropped',
      track,
      logger,
      observer,
    });
  }

  /**
   * A Messages client's stream, metered in Anthropic's terms (every prompt token once, cache reads and writes
   * included) and broken off with an `error` event. An openai provider's is rewritten into Messages events,
   * and the rewrite, which read the upstream's usage and text as it wrote them, is the meter: its own output
   * is not parsed again.
   */
  function relayMessages(
    body: ReadableStream<Uint8Array>,
    ctx: {
      upstream: Upstream;
      call: Parameters<typeof relayStream>[1]['call'];
      base: RequestFacts;
      started: number;
      reservation: Reservation;
      model: string;
      promptEstimate: () => number;
    },
  ): Promise<Response> {
    const common: Omit<StreamRelay, 'meter' | 'reported' | 'estimated'> = {
      endpoint: 'messages',
      base: ctx.base,
      started: ctx.started,
      billing,
      reservation: ctx.reservation,
      filter: null,
      errorEvent: (message, type) => messagesErrorEvent(message, anthropicTypeOf(type)),
      redact: ctx.upstream.redact,
      call: ctx.call,
      tooLargeStatus: 'upstream_dropped',
      track,
      logger,
      observer,
    };
    if (ctx.upstream.protocol !== 'anthropic') {
      const rewrite = messagesStreamOf({ model: ctx.model, estimatePrompt: ctx.promptEstimate });
      return relayStream(body, {
        ...common,
        rewrite,
        meter: IGNORED_TEXT,
        reported: () => rewrite.counts,
        estimated: () => usageFacts({ prompt_tokens: ctx.promptEstimate(), completion_tokens: rewrite.completionTokens }),
      });
    }
    const meter = createMessagesMeter();
    return relayStream(body, {
      ...common,
      // The provider's events pass as they came, whole, so that the relay can take its key out of an error.
      rewrite: wholeEvents(),
      meter,
      reported: () => (meter.usage ? anthropicTokenCounts(meter.usage) : null),
      estimated: () => usageFacts({ prompt_tokens: ctx.promptEstimate(), completion_tokens: meter.completionTokens + oversizedTokens(meter.oversizedChars) }),
    });
  }

  return {
    complete,

    /** Streams still being relayed. */
    get openStreams() {
      return openStreams.size;
    },

    /** Ends every stream still running (the shutdown grace period is over). */
    endStreams() {
      for (const end of [...openStreams]) end();
    },

    /**
     * Another /v1 route's stream, ended with chat's when the grace period is over and counted with them;
     * returns its removal (call it when the stream ends).
     */
    trackStream: track,

    /** The /v1 key check (expiry, blocked user, the key's and account's rate limits), shared by every billed /v1 route. */
    authenticate,

    /** The /v1/chat/completions route. */
    async handle(request: Request): Promise<Response> {
      const key = await authenticate(request);
      const { text, body } = await parseBody(request);
      verifier.markUsed(key.keyId);
      const requestId = requestIdOf(request);
      const owner = { userId: key.userId, keyId: ownKeyId(key) };
      const payer = keyPayer(key);
      const run = () => complete(payer, body, text, requestId, request.signal);
      // A request that does not ask for the cache reads nothing more than its key's mode and one header.
      const answer =
        responseCache && asksForCache(request, key.cache)
          ? () => responseCache.answer({ payer: { ...payer, apiKeyId: key.keyId }, owner, mode: key.cache, body, requestId }, run)
          : run;
      return withIdempotency({ idempotency, logger }, request, { owner, text, requestId, stream: body.stream === true }, answer);
    },
  };
}

export type ChatHandler = ReturnType<typeof createChatHandler>;
