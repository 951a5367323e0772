// The exact response cache of /v1/chat/completions (issue 43 point 6). A request that asks for it (its key's
// mode, or `x-conduit-cache: on`) and may be cached (request-key.ts) is looked up by its owner and canonical
// form: a live answer is served from PostgreSQL without asking a model, `x-conduit-cache: hit`, billed at
// CACHE_HIT_PRICE_RATIO of what its tokens cost now; otherwise the request runs as any other, says `miss`,
// and its 2xx answer is kept for CACHE_TTL_SECONDS. Two identical requests at once both go upstream, and the
// later answer is the one kept: a request never waits for another's.
import type { Config } from '../../config';
import type { Logger } from '../../logger';
import type { ModelPrice, PriceBook } from '../../pricing/prices';
import { COST_HEADER, costText, withUsageCost } from '../answer-cost';
import { type Billing, type RefusalFacts, usageCost } from '../billing';
import type { ChatRequest } from '../request';
import { settleAnswer, tokenCount } from '../settlement';
import { pricedModel } from '../v1-request';
import type { PayerGroups } from '../price-group';
import { CACHE_HEADER, type CacheOwner, cacheable, requestHash } from './request-key';
import { type CachedAnswer, MAX_CACHED_ANSWER_CHARS, type ResponseCacheStore } from './store';
import type { KeyCacheMode, KeyLimitRef, MemberLimitRef } from '../../keys';

const BILLION = 1_000_000_000n;

/**
 * The price of a hit: the model's price per 1M tokens times the ratio (in billionths), rounded up to a whole
 * nano-unit per 1M tokens; the request is then costed at it as any other, rounded once (pricing/prices.ts).
 */
export function hitPrice(price: ModelPrice, ratioNano: bigint): ModelPrice {
  const scale = (perMillion: bigint) => (perMillion * ratioNano + BILLION - 1n) / BILLION;
  return { pattern: price.pattern, promptNanoPerMillion: scale(price.promptNanoPerMillion), completionNanoPerMillion: scale(price.completionNanoPerMillion) };
}

/** A 2xx JSON answer as the cache keeps it: without `usage.cost` (a hit writes its own), with its token counts. */
function storable(status: number, contentType: string | null, text: string): CachedAnswer | null {
  if (status < 200 || status > 299 || text.length > MAX_CACHED_ANSWER_CHARS) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const usage = (parsed as { usage?: unknown }).usage;
  if (!usage || typeof usage !== 'object' || Array.isArray(usage)) return null;
  const counts = usage as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown; cost?: unknown };
  delete counts.cost;
  const promptTokens = tokenCount(counts.prompt_tokens);
  const completionTokens = tokenCount(counts.completion_tokens);
  return {
    status,
    contentType: contentType ?? 'application/json',
    // JSON.stringify escapes what PostgreSQL text cannot hold (NUL, lone surrogates).
    body: JSON.stringify(parsed),
    promptTokens,
    completionTokens,
    totalTokens: Math.max(tokenCount(counts.total_tokens), promptTokens + completionTokens),
  };
}

/** A response with the cache's verdict added to its headers. */
function marked(response: Response, verdict: 'hit' | 'miss', body: BodyInit | null = response.body): Response {
  const headers = new Headers(response.headers);
  headers.set(CACHE_HEADER, verdict);
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

export interface ResponseCacheDeps {
  store: ResponseCacheStore;
  billing: Billing;
  prices: Pick<PriceBook, 'resolve'>;
  /** The payer's price group (price-group.ts). */
  priceGroups: PayerGroups;
  logger: Logger;
  config: Pick<Config, 'cacheHitPriceRatioNano'>;
}

/** One chat request the cache is asked about: who pays, whose answers it reads, and the request. */
export interface CacheCall {
  payer: { userId: string; apiKeyId: string; keyLimit?: KeyLimitRef | null; memberLimit?: MemberLimitRef | null; priceGroup?: string | undefined };
  owner: CacheOwner;
  mode: KeyCacheMode;
  body: ChatRequest;
  requestId: string;
}

export function createResponseCache(deps: ResponseCacheDeps) {
  const { store, billing, prices, priceGroups, logger, config } = deps;

  /** Serves a kept answer: reserved and settled at the hit price, like any request, the key's limit included. */
  async function serveHit(call: CacheCall, model: string, price: ModelPrice, answer: CachedAnswer): Promise<Response> {
    const started = performance.now();
    const { payer, requestId } = call;
    const counts = { promptTokens: answer.promptTokens, completionTokens: answer.completionTokens, totalTokens: answer.totalTokens };
    const priced = hitPrice(price, config.cacheHitPriceRatioNano);
    const base: RefusalFacts = { userId: payer.userId, apiKeyId: payer.apiKeyId, agentId: null, requestId, model, stream: false };
    const reservation = await billing.reserve(payer.userId, usageCost(priced, counts).totalNano, {
      price: priced,
      key: payer.keyLimit ?? null,
      member: payer.memberLimit ?? null,
      request: base,
    });
    const { costNano } = settleAnswer(billing, logger, reservation, {
      ...base,
      ...counts,
      status: 'ok',
      usageSource: 'cache',
      upstreamStatus: null,
      durationMs: Math.round(performance.now() - started),
    });
    const cost = costText(costNano);
    return new Response(withUsageCost(answer.body, cost), {
      status: answer.status,
      headers: { 'content-type': answer.contentType, [COST_HEADER]: cost, [CACHE_HEADER]: 'hit' },
    });
  }

  return {
    /**
     * Answers a request that asked for the cache: from it when it holds the answer, else through `run` (the
     * usual completion), keeping a 2xx answer. A request the cache may not answer just runs.
     */
    async answer(call: CacheCall, run: () => Promise<Response>): Promise<Response> {
      if (!cacheable(call.body, call.mode)) return run();
      // The same resolution complete() makes (and its 400 for a model that cannot be priced).
      const { model, price } = pricedModel(prices, call.body.model, await priceGroups(call.payer));
      const hash = requestHash(call.owner, model, call.body);
      // A cache that cannot be read is no reason to fail the request: it goes to the model.
      const kept = await store.find(call.owner.userId, hash).catch((error) => {
        logger.warn('could not read the response cache', { error, requestId: call.requestId });
        return null;
      });
      if (kept) return serveHit(call, model, price, kept);
      const response = await run();
      const contentType = response.headers.get('content-type');
      if (response.status < 200 || response.status > 299 || (contentType ?? '').includes('text/event-stream')) return marked(response, 'miss');
      const text = await response.text();
      const answer = storable(response.status, contentType, text);
      if (answer) {
        await store
          .put(call.owner, hash, model, answer)
          .catch((error) => logger.warn('could not keep an answer in the response cache', { error, requestId: call.requestId }));
      }
      return marked(response, 'miss', text);
    },

    /** Deletes expired answers (the periodic sweep). */
    purge: () => store.purge(),
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
