// What callers of billing hand it and get back: the facts of a request's usage, the reservation a request
// holds while it runs, and the options of createBilling. Money is bigint nano-units throughout.
import type { Config } from '../../config';
import type { Database, DatabaseHandle } from '../../db/client';
import type { KeyLimitRef, MemberLimitRef } from '../../keys';
import type { Logger } from '../../logger';
import type { USAGE_ENDPOINTS } from '../usage-input';
import { billedCompletionTokens, costOf, secondsCostOf, totalCostOf, type ModelPrice, type RequestCost } from '../../pricing/prices';

export type UsageStatus =
  | 'ok'
  | 'client_closed'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'upstream_rejected'
  | 'upstream_dropped'
  /** The server shut down with the stream still running (past SHUTDOWN_GRACE_MS). */
  | 'server_shutdown'
  /** Refused with 402 before anything was asked of a model: the balance could not cover the reservation. */
  | 'refused_balance'
  /** Refused with 402 before anything was asked of a model: the key's spend limit for its period is used up. */
  | 'refused_key_limit'
  /** Refused with 402 before anything was asked of a model: the organisation member's monthly limit is used up. */
  | 'refused_member_limit';

export interface UsageFacts {
  userId: string;
  apiKeyId?: string | null;
  agentId?: string | null;
  requestId: string;
  /** The /v1 endpoint that made the request (default chat). */
  endpoint?: UsageEndpoint;
  model: string;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /**
   * Of promptTokens, those the provider read from its cache (OpenAI's prompt_tokens_details.cached_tokens,
   * Anthropic's cache_read_input_tokens), priced at the model's cached-input price; absent: none.
   */
  cachedTokens?: number;
  /** Of promptTokens, those written to the provider's cache (cache_creation_input_tokens), at the cache-write price. */
  cacheWriteTokens?: number;
  /** Of completionTokens, the reasoning ones (completion_tokens_details.reasoning_tokens): shown, billed as completion. */
  reasoningTokens?: number;
  status: UsageStatus;
  /** cache: answered from the response cache (gateway/response-cache), billed at CACHE_HIT_PRICE_RATIO. */
  usageSource: 'upstream' | 'tokenizer' | 'none' | 'cache';
  upstreamStatus?: number | null;
  error?: string | null;
  durationMs: number;
  /** The provider that answered, or the last one tried (routing); absent on settlements made without one. */
  providerId?: string | null;
  /** Providers tried, the answering one included. */
  attempts?: number | null;
  /** The cost price of the route target that answered (or was tried last), when the operator gave one. */
  providerPrice?: ModelPrice | null;
  /** Milliseconds of audio a transcription was billed for (per-second prices charge these); absent elsewhere. */
  audioMs?: number | null;
}

export type UsageEndpoint = (typeof USAGE_ENDPOINTS)[number];

/** What the provider charges us for the request at its cost price (counted as settle() counts tokens); null: no cost price. */
export function providerCost(
  facts: Pick<UsageFacts, 'providerPrice' | 'promptTokens' | 'completionTokens' | 'totalTokens' | 'audioMs' | 'cachedTokens' | 'cacheWriteTokens'>,
): bigint | null {
  if (!facts.providerPrice) return null;
  return facts.providerPrice.perSecondNano !== undefined
    ? secondsCostOf(facts.providerPrice.perSecondNano, facts.audioMs ?? 0).totalNano
    : totalCostOf(facts.providerPrice, facts.promptTokens, billedCompletionTokens(facts), facts.cachedTokens ?? 0, facts.cacheWriteTokens ?? 0);
}

/**
 * What usage costs at a price, as settle() charges it (a total above prompt + completion counts as
 * completion; the prompt's cache reads and writes at their own prices, pricing/prices.ts); a per-second
 * price charges the audio's milliseconds instead.
 */
export function usageCost(
  price: ModelPrice,
  facts: Pick<UsageFacts, 'promptTokens' | 'completionTokens' | 'totalTokens' | 'audioMs' | 'cachedTokens' | 'cacheWriteTokens'>,
) {
  if (price.perSecondNano !== undefined) return secondsCostOf(price.perSecondNano, facts.audioMs ?? 0);
  return costOf(price, facts.promptTokens, billedCompletionTokens(facts), facts.cachedTokens ?? 0, facts.cacheWriteTokens ?? 0);
}

export interface Reservation {
  readonly userId: string;
  readonly amountNano: bigint;
  /** The price the request was reserved at; it is settled at the same price. */
  readonly price: ModelPrice;
  done: boolean;
}

export interface BillingOptions {
  db: Database;
  /** Raw statements of the same database: the batch statement runs through it, prepared. */
  query: DatabaseHandle['query'];
  config: Pick<Config, 'tokenPriceNano' | 'leaseChunkNano' | 'usageFlushMs'> &
    Partial<Pick<Config, 'balanceCurrency' | 'cacheReadPriceRatioNano' | 'cacheWritePriceRatioNano'>>;
  logger: Logger;
  instanceId: string;
  /** Leases unused this long go back to the balance. */
  idleReturnMs?: number;
  /** A lease whose instance stops renewing it is returned by anyone after this long. */
  leaseTtlSeconds?: number;
  /** Most settlements one statement writes; a backlog this large is written at once, without the delay. */
  maxBatch?: number;
  /**
   * Most settlements one statement writes (default and at most maxBatch) while the writer keeps up; a batch
   * larger is written in several, the event loop let run between them. On PGlite every statement runs on the
   * server's own thread, so its length is how long requests wait. A backlog of more than 8 such statements is
   * written in whole batches again.
   */
  statementRows?: number;
  /**
   * Settlements that may wait to be written before reserve() waits for the writer: overload then slows
   * admission instead of growing memory and the window a crash would lose.
   */
  maxPending?: number;
  /** How long reserve() waits for room in the backlog before it answers 429 (default 10 s). */
  admissionWaitMs?: number;
  /** Subscribes to lease recalls from other instances (absent: this instance never hears them). */
  listen?: DatabaseHandle['listen'];
  /**
   * Folder of the settlement journal (see journal.ts): every settlement is appended there before the
   * answer's last byte, and the rows of instances that died are written at start. Absent: no journal.
   */
  journalDir?: string;
  /** How long stop() keeps retrying writes before it leaves the rest to the journal (default 15 s). */
  stopWriteMs?: number;
  /** Told of every settlement and lease top-up (metrics). */
  observer?: BillingObserver;
}

export interface BillingObserver {
  /** `cost.totalNano`: the price of the tokens (what was charged, unless the balance could not cover it all). */
  settled(facts: UsageFacts, cost: RequestCost): void;
  unpaid(nano: bigint): void;
  topUp(lease: 'balance' | 'key' | 'member', outcome: 'ok' | 'refused' | 'failed'): void;
  /**
   * Settlements that cost something, told once their batch (or overage) has committed: whose balance and
   * which limited key's spend just moved (keyId null for a key without a limit). Called on the writer's
   * path, so it must only take note and return (alerts check these users later, off the hot path).
   */
  charged?(charges: readonly Charge[]): void;
}

export interface Charge {
  userId: string;
  /** The key whose spend limit the settlement counted against; null: none. */
  keyId: string | null;
  /**
   * The organisation member whose monthly limit the settlement counted against, or whose call that limit
   * refused (a charge of nothing); absent: none.
   */
  member?: { organizationId: string; memberId: string; refused: boolean } | null;
}

/** NOTIFY channel (payload: user id) asking every instance to hand back the unreserved part of its lease. */
export const LEASE_RECALL_CHANNEL = 'conduit_lease_recall';

export interface ReserveOptions {
  /** Default: TOKEN_PRICE both ways. */
  price?: ModelPrice;
  /** The key's spend limit to reserve against as well (keys without one pass null). */
  key?: KeyLimitRef | null;
  /** The key's creator's monthly limit in its organisation, to reserve against as well (null: none). */
  member?: MemberLimitRef | null;
  /**
   * Who asks and for what: given, a request refused with 402 (balance or key limit) leaves a usage row of
   * no tokens and no cost saying so, queued like any settlement (the owner sees refused calls in usage).
   */
  request?: RefusalFacts;
}

/** What a refused request's usage row says of it: who, which key or agent, which endpoint and model. */
export type RefusalFacts = Pick<UsageFacts, 'userId' | 'apiKeyId' | 'agentId' | 'requestId' | 'endpoint' | 'model' | 'stream'>;
