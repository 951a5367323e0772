// The price table: what a model's prompt and completion tokens cost, per 1M tokens in nano-units of the
// balance currency. A row names a model id exactly, or a prefix ending in `*` ("openai/*", "*"); the
// longest match wins and a model no row matches costs TOKEN_PRICE per token both ways, or is refused
// under UNPRICED_MODELS=refuse. Ids compare case-insensitively after trimming, and a `:suffix` variant of
// a model priced by its own exact row is priced only by a row of its own (pricing/model-id.ts): a request
// is priced through resolve(), which also names the id that goes upstream, the id that was priced.
//
// Price groups (issue 45): every account is in a group (users.price_group). A group multiplies the list
// prices (and the TOKEN_PRICE default) by its multiplier, may carry its own price for some models (an
// override: it replaces list × multiplier for the models its pattern covers, the longest of the group's
// patterns winning) and may restrict its accounts to some models (a model outside the list is refused,
// 403 model_not_allowed, before anything is reserved). priceForGroup() is the one place a multiplier
// touches a price.
//
// The hot path asks resolve() for every request, so the tables live in memory: loaded at start, reloaded
// on every instance when any instance changes them (PostgreSQL NOTIFY), and re-read every few minutes in
// case a notification was lost. Matches are memoised per (group, model id).
//
// Rounding: a price per 1M tokens need not land on a whole nano-unit per token, so a request's cost is
// computed exactly in 1e-6 nano-units and rounded up to a whole nano-unit once, for the whole request.
// The prompt part is rounded down and the completion part takes the rest, so the two always add up.
//
// Prompt tokens the provider read from its cache or wrote to it (issue 45) are priced apart, inside the
// prompt part: fresh × prompt + cached × cached price + written × cache-write price, still rounded once.
// A row without those prices gets them derived from the prompt price and CACHE_READ_PRICE_RATIO /
// CACHE_WRITE_PRICE_RATIO when the book loads, rounded up to a whole nano-unit per 1M (docs/cached-tokens.md).
import { asc, eq, sql } from 'drizzle-orm';
import type { Config } from '../config';
import type { Database, DatabaseHandle, Executor } from '../db/client';
import { modelPrices, priceGroupPrices, priceGroups } from './tables';
import type { Logger } from '../logger';
import { nanoToDecimalString } from '../money';
import { coalescedReload } from '../jobs/coalesced-reload';
import { matchPattern, patternTable, type PatternTable } from './model-id';

export const PRICES_CHANGED_CHANNEL = 'conduit_prices_changed';
const MILLION = 1_000_000n;
/** The group the migration seeds: ×1, every model, the default until an operator names another. */
export const BASE_PRICE_GROUP = 'base';
/** A multiplier of 1 in parts per million. */
export const MULTIPLIER_ONE_PPM = 1_000_000n;

export interface ModelPrice {
  /** The row that matched, or null for the TOKEN_PRICE default. */
  pattern: string | null;
  promptNanoPerMillion: bigint;
  completionNanoPerMillion: bigint;
  /** Present on a `per_second` row: nano-units a second of audio, charged instead of tokens. */
  perSecondNano?: bigint;
  /**
   * Per 1M prompt tokens the provider read from its cache (OpenAI's prompt_tokens_details.cached_tokens,
   * Anthropic's cache_read_input_tokens); absent: the prompt price × CACHE_READ_PRICE_RATIO (issue 45).
   */
  cachedPromptNanoPerMillion?: bigint;
  /** Per 1M prompt tokens written to the provider's cache (cache_creation_input_tokens); absent: prompt × 1.25. */
  cacheWriteNanoPerMillion?: bigint;
}

export type PriceKind = 'per_token' | 'per_second';
export const PRICE_KINDS = ['per_token', 'per_second'] as const;

/** CACHE_READ_PRICE_RATIO and CACHE_WRITE_PRICE_RATIO in billionths: what a row without cache prices derives them from. */
export interface CacheRatios {
  readNano: bigint;
  writeNano: bigint;
}

/** The defaults of config.ts: a cache read at 0.1 of the prompt price, a cache write at 1.25. */
export const DEFAULT_CACHE_RATIOS: CacheRatios = { readNano: 100_000_000n, writeNano: 1_250_000_000n };

const BILLION = 1_000_000_000n;

/** A price per 1M tokens times a ratio in billionths, rounded up to a whole nano-unit per 1M tokens. */
export function scaledPerMillion(perMillion: bigint, ratioNano: bigint): bigint {
  return (perMillion * ratioNano + BILLION - 1n) / BILLION;
}

/**
 * A price with its cache prices filled: the row's own where it names them, else derived from its prompt
 * price by the ratios. Every ModelPrice the book hands out has both, so a price group's multiplier scales
 * them with the rest and the charge reads them from the price alone.
 */
export function withCachePrices(
  price: ModelPrice,
  ratios: CacheRatios,
  own: { cachedPromptNanoPerMillion?: bigint | null; cacheWriteNanoPerMillion?: bigint | null } = {},
): ModelPrice {
  price.cachedPromptNanoPerMillion = own.cachedPromptNanoPerMillion ?? scaledPerMillion(price.promptNanoPerMillion, ratios.readNano);
  price.cacheWriteNanoPerMillion = own.cacheWriteNanoPerMillion ?? scaledPerMillion(price.promptNanoPerMillion, ratios.writeNano);
  return price;
}

/**
 * The price of a row as the book keeps it: a per-second row carries its price a second; a token row its
 * cache prices, its own or derived by `ratios`.
 */
export function modelPriceOf(
  row: Pick<PriceRow, 'pattern' | 'promptNanoPerMillion' | 'completionNanoPerMillion' | 'kind' | 'perSecondNano'> &
    Partial<Pick<PriceRow, 'cachedPromptNanoPerMillion' | 'cacheWriteNanoPerMillion'>>,
  ratios: CacheRatios = DEFAULT_CACHE_RATIOS,
): ModelPrice {
  const price: ModelPrice = { pattern: row.pattern, promptNanoPerMillion: row.promptNanoPerMillion, completionNanoPerMillion: row.completionNanoPerMillion };
  if (row.kind === 'per_second') price.perSecondNano = row.perSecondNano;
  return withCachePrices(price, ratios, row);
}

/** Milliseconds of audio at a per-second price, rounded up to a whole nano-unit once for the request. */
export function secondsCostOf(perSecondNano: bigint, audioMs: number): RequestCost {
  const ms = BigInt(Math.max(0, Math.ceil(audioMs)));
  const totalNano = (ms * perSecondNano + 999n) / 1000n;
  return { promptCostNano: totalNano, completionCostNano: 0n, totalNano };
}

/** A per-second price in nano-units as OpenAI-style decimal text per second ("0.0001"). */
export function perSecondText(nano: bigint): string {
  return nanoToDecimalString(nano);
}

/** What resolve() makes of a requested model id. */
export type ResolvedModel =
  /** `model`: the id to send upstream and record (the exact row's own spelling, else the id trimmed). */
  | { kind: 'priced'; model: string; price: ModelPrice }
  /** A `:suffix` variant with no row of its own, of a model priced by its exact row `base`. */
  | { kind: 'variant_unlisted'; base: string }
  /** No row covers the model and UNPRICED_MODELS=refuse. */
  | { kind: 'unpriced' }
  /** The payer's price group lists the models it may call, and this one is not among them. */
  | { kind: 'not_allowed' };

/** A price group as the book keeps it. */
export interface PriceGroup {
  name: string;
  title: string;
  /** The multiplier on list prices, in parts per million (1.25 = 1_250_000). */
  multiplierPpm: bigint;
  /** Exact ids or prefixes ending in `*`; null: every model. */
  allowedModels: string[] | null;
  isDefault: boolean;
}

/** A group's own price for a model id or prefix (price_group_prices). */
export interface GroupPriceRow {
  groupName: string;
  pattern: string;
  promptNanoPerMillion: bigint;
  completionNanoPerMillion: bigint;
  kind: string;
  perSecondNano: bigint;
  updatedAt: Date;
}

/**
 * A list price as a group pays it: every price field (tokens, seconds of audio, cached and cache-write
 * tokens, whatever ModelPrice names) × the multiplier, each rounded up once to a whole nano-unit per its
 * unit (1M tokens, a second). The one function that applies a multiplier.
 */
export function priceForGroup(price: ModelPrice, multiplierPpm: bigint): ModelPrice {
  if (multiplierPpm === MULTIPLIER_ONE_PPM) return price;
  const scaled: Record<string, unknown> = { ...price };
  for (const [field, value] of Object.entries(price)) {
    if (typeof value === 'bigint') scaled[field] = ceilDiv(value * multiplierPpm, MILLION);
  }
  return scaled as unknown as ModelPrice;
}

/** A row of the price table as it is written (the console's form, the import). */
export interface PriceWrite {
  pattern: string;
  promptNanoPerMillion: bigint;
  completionNanoPerMillion: bigint;
  /** Default per_token; a per_second row charges `perSecondNano` a second of audio. */
  kind?: PriceKind;
  perSecondNano?: bigint;
  /** Absent or null: prompt × CACHE_READ_PRICE_RATIO (a row written again without it loses its own). */
  cachedPromptNanoPerMillion?: bigint | null;
  /** Absent or null: prompt × CACHE_WRITE_PRICE_RATIO. */
  cacheWriteNanoPerMillion?: bigint | null;
}

export interface PriceRow {
  pattern: string;
  promptNanoPerMillion: bigint;
  completionNanoPerMillion: bigint;
  kind: string;
  perSecondNano: bigint;
  /** Null: derived from the prompt price by CACHE_READ_PRICE_RATIO. */
  cachedPromptNanoPerMillion: bigint | null;
  /** Null: derived from the prompt price by CACHE_WRITE_PRICE_RATIO. */
  cacheWriteNanoPerMillion: bigint | null;
  updatedAt: Date;
}

export interface RequestCost {
  promptCostNano: bigint;
  completionCostNano: bigint;
  totalNano: bigint;
}

export { PRICE_PATTERN } from './pattern';

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** The completion tokens a request is billed for: a reported total above prompt + completion counts as completion. */
export function billedCompletionTokens(counts: { promptTokens: number; completionTokens: number; totalTokens: number }): number {
  return Math.max(counts.completionTokens, counts.totalTokens - counts.promptTokens);
}

/**
 * The cost of a request's tokens at a price, rounded once (see the file's head). It runs twice a request
 * (the reservation's bound, the settlement): while every figure is an integer below 2^53 it is worked out
 * exactly in doubles (a remainder and a division of an exact multiple, never a rounded quotient), and only
 * the three results become BigInts; each BigInt step is a heap object, ~430 bytes of garbage a call.
 */
export function costOf(price: ModelPrice, promptTokens: number, completionTokens: number, cachedTokens = 0, cacheWriteTokens = 0): RequestCost {
  if (cachedTokens !== 0 || cacheWriteTokens !== 0) return cachedCostOf(price, promptParts(promptTokens, cachedTokens, cacheWriteTokens), completionTokens);
  const promptPrice = Number(price.promptNanoPerMillion);
  const completionPrice = Number(price.completionNanoPerMillion);
  const promptExact = promptTokens * promptPrice;
  const exact = promptExact + completionTokens * completionPrice;
  if (
    promptTokens >= 0 &&
    completionTokens >= 0 &&
    promptPrice >= 0 &&
    completionPrice >= 0 &&
    Number.isSafeInteger(promptTokens) &&
    Number.isSafeInteger(completionTokens) &&
    Number.isSafeInteger(promptPrice) &&
    Number.isSafeInteger(completionPrice) &&
    Number.isSafeInteger(exact)
  ) {
    const promptCost = (promptExact - (promptExact % 1e6)) / 1e6;
    const rest = exact % 1e6;
    const total = (exact - rest) / 1e6 + (rest > 0 ? 1 : 0);
    return { promptCostNano: BigInt(promptCost), completionCostNano: BigInt(total - promptCost), totalNano: BigInt(total) };
  }
  return exactCostOf(price, promptTokens, completionTokens);
}

/**
 * costOf's total alone, as one BigInt: what a provider's cost price makes of a request (a settlement adds
 * this one number to what it already allocates).
 */
export function totalCostOf(price: ModelPrice, promptTokens: number, completionTokens: number, cachedTokens = 0, cacheWriteTokens = 0): bigint {
  if (cachedTokens !== 0 || cacheWriteTokens !== 0) {
    return cachedCostOf(price, promptParts(promptTokens, cachedTokens, cacheWriteTokens), completionTokens).totalNano;
  }
  const promptPrice = Number(price.promptNanoPerMillion);
  const completionPrice = Number(price.completionNanoPerMillion);
  const exact = promptTokens * promptPrice + completionTokens * completionPrice;
  if (
    promptTokens >= 0 &&
    completionTokens >= 0 &&
    Number.isSafeInteger(promptTokens * promptPrice) &&
    Number.isSafeInteger(completionTokens * completionPrice) &&
    Number.isSafeInteger(exact)
  ) {
    const rest = exact % 1e6;
    return BigInt((exact - rest) / 1e6 + (rest > 0 ? 1 : 0));
  }
  return exactCostOf(price, promptTokens, completionTokens).totalNano;
}

function exactCostOf(price: ModelPrice, promptTokens: number, completionTokens: number): RequestCost {
  const promptExact = BigInt(promptTokens) * price.promptNanoPerMillion;
  const completionExact = BigInt(completionTokens) * price.completionNanoPerMillion;
  const totalNano = ceilDiv(promptExact + completionExact, MILLION);
  const promptCostNano = promptExact / MILLION;
  return { promptCostNano, completionCostNano: totalNano - promptCostNano, totalNano };
}

/** A reported count as a whole number of tokens: anything not a finite positive number is none. */
const whole = (n: number) => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/** A request's prompt tokens by how they are priced: fresh, read from the provider's cache, written to it. */
export interface PromptParts {
  fresh: number;
  cached: number;
  cacheWrite: number;
}

/**
 * The prompt's tokens split for pricing. Both cache figures are parts of the prompt (OpenAI's prompt_tokens
 * counts its cached tokens; an Anthropic prompt is counted as input + read + written before it gets here), so
 * neither can exceed it: a cache read larger than the prompt is the whole prompt, a write the rest of it, and
 * the fresh remainder is never negative (new-api billed such reports below zero).
 */
export function promptParts(promptTokens: number, cachedTokens: number, cacheWriteTokens: number): PromptParts {
  const prompt = whole(promptTokens);
  const cached = Math.min(whole(cachedTokens), prompt);
  const cacheWrite = Math.min(whole(cacheWriteTokens), prompt - cached);
  return { fresh: prompt - cached - cacheWrite, cached, cacheWrite };
}

/**
 * costOf for a prompt with cache reads or writes: the three prompt prices and the completion price summed
 * exactly in 1e-6 nano-units and rounded once, in doubles while every figure is an exact integer, else in
 * BigInt. A price without its cache prices (one made outside the book) charges them as fresh prompt tokens.
 */
function cachedCostOf(price: ModelPrice, parts: PromptParts, completionTokens: number): RequestCost {
  const fresh = price.promptNanoPerMillion;
  const cached = price.cachedPromptNanoPerMillion ?? fresh;
  const written = price.cacheWriteNanoPerMillion ?? fresh;
  const completion = price.completionNanoPerMillion;
  const promptExact = parts.fresh * Number(fresh) + parts.cached * Number(cached) + parts.cacheWrite * Number(written);
  const exact = promptExact + completionTokens * Number(completion);
  if (
    completionTokens >= 0 &&
    fresh >= 0n &&
    cached >= 0n &&
    written >= 0n &&
    completion >= 0n &&
    Number.isSafeInteger(completionTokens) &&
    // Every product and partial sum is at most `exact`, a non-negative integer: when it is safe they all are.
    Number.isSafeInteger(exact)
  ) {
    const promptCost = (promptExact - (promptExact % 1e6)) / 1e6;
    const rest = exact % 1e6;
    const total = (exact - rest) / 1e6 + (rest > 0 ? 1 : 0);
    return { promptCostNano: BigInt(promptCost), completionCostNano: BigInt(total - promptCost), totalNano: BigInt(total) };
  }
  const promptBig = BigInt(parts.fresh) * fresh + BigInt(parts.cached) * cached + BigInt(parts.cacheWrite) * written;
  const totalNano = ceilDiv(promptBig + BigInt(Math.max(0, Math.trunc(completionTokens))) * completion, MILLION);
  const promptCostNano = promptBig / MILLION;
  return { promptCostNano, completionCostNano: totalNano - promptCostNano, totalNano };
}

/** A price per 1M tokens in nano-units as OpenAI-style decimal text per token ("0.000000125"). */
export function perTokenText(nanoPerMillion: bigint): string {
  return nanoToDecimalString(nanoPerMillion, 15);
}

/** The configured cache ratios (config.ts), or the defaults where a caller's config has none. */
export function cacheRatiosOf(config: Partial<Pick<Config, 'cacheReadPriceRatioNano' | 'cacheWritePriceRatioNano'>>): CacheRatios {
  return {
    readNano: config.cacheReadPriceRatioNano ?? DEFAULT_CACHE_RATIOS.readNano,
    writeNano: config.cacheWritePriceRatioNano ?? DEFAULT_CACHE_RATIOS.writeNano,
  };
}

export interface PriceBookOptions {
  db: Database;
  database: Pick<DatabaseHandle, 'listen'>;
  config: Pick<Config, 'tokenPriceNano'> & Partial<Pick<Config, 'unpricedModels' | 'cacheReadPriceRatioNano' | 'cacheWritePriceRatioNano'>>;
  logger: Logger;
  /** Safety net for a lost notification. */
  refreshMs?: number;
}

/** A group as resolve() uses it: its overrides and allowed list as pattern tables, its own memo. */
interface GroupBook {
  group: PriceGroup;
  overrides: PatternTable<ModelPrice>;
  /** null: every model. */
  allowed: PatternTable<true> | null;
  memo: Map<string, ResolvedModel>;
  /** False for a stand-in: a group named before the book had loaded it. */
  loaded: boolean;
}

/** Whether a model id is on a group's list: an exact id or a prefix covers it (a variant needs its own). */
function allowedBy(model: string, allowed: PatternTable<true>): boolean {
  return matchPattern(model, allowed).kind === 'match';
}

function groupBookOf(group: PriceGroup, overrides: GroupPriceRow[], ratios: CacheRatios, loaded = true): GroupBook {
  const list = group.allowedModels?.filter((p) => p.length > 0) ?? [];
  return {
    group,
    overrides: patternTable(overrides.map((row) => ({ pattern: row.pattern, value: modelPriceOf(row, ratios) }))),
    // `*` alone allows everything: the same as no list.
    allowed: list.length === 0 || list.includes('*') ? null : patternTable(list.map((pattern) => ({ pattern, value: true as const }))),
    memo: new Map(),
    loaded,
  };
}

export function createPriceBook(options: PriceBookOptions) {
  const { db, database, config, logger } = options;
  const refreshMs = options.refreshMs ?? 5 * 60_000;
  const ratios = cacheRatiosOf(config);
  const fallback: ModelPrice = withCachePrices(
    {
      pattern: null,
      promptNanoPerMillion: config.tokenPriceNano * MILLION,
      completionNanoPerMillion: config.tokenPriceNano * MILLION,
    },
    ratios,
  );
  const refuseUnpriced = config.unpricedModels === 'refuse';
  let table: PatternTable<ModelPrice> = patternTable([]);
  let memo = new Map<string, ResolvedModel>();
  /** A group the book does not know (created on another instance a moment ago): list prices, every model. */
  const listGroup = (name: string): GroupBook =>
    groupBookOf({ name, title: name, multiplierPpm: MULTIPLIER_ONE_PPM, allowedModels: null, isDefault: false }, [], ratios, false);
  let groups = new Map<string, GroupBook>([[BASE_PRICE_GROUP, listGroup(BASE_PRICE_GROUP)]]);
  let defaultGroup = BASE_PRICE_GROUP;
  /** Replaced by every load: what a kept model list was priced with. */
  let version: object = {};
  const MEMO_LIMIT = 10_000;
  let timer: ReturnType<typeof setInterval> | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  /** The last model list shown with prices per group, and the tables it was priced with. */
  let priced = new Map<string, { source: object; version: object; body: string }>();

  function install(rows: PriceRow[], groupRows: PriceGroup[], overrideRows: GroupPriceRow[]) {
    table = patternTable(rows.map((row) => ({ pattern: row.pattern, value: modelPriceOf(row, ratios) })));
    memo = new Map();
    const next = new Map<string, GroupBook>();
    for (const group of groupRows) {
      next.set(
        group.name,
        groupBookOf(
          group,
          overrideRows.filter((row) => row.groupName === group.name),
          ratios,
        ),
      );
      if (group.isDefault) defaultGroup = group.name;
    }
    groups = next;
    version = {};
    priced = new Map();
  }

  /** The list price of a model: the price table alone, before any group (see the file's head). */
  function resolveListed(model: string): ResolvedModel {
    const known = memo.get(model);
    if (known) return known;
    const match = matchPattern(model, table);
    const resolved: ResolvedModel =
      match.kind === 'match'
        ? { kind: 'priced', model: match.exact ? match.pattern : model.trim(), price: match.value }
        : match.kind === 'variant_unlisted'
          ? { kind: 'variant_unlisted', base: match.base }
          : refuseUnpriced
            ? { kind: 'unpriced' }
            : { kind: 'priced', model: model.trim(), price: fallback };
    if (memo.size >= MEMO_LIMIT) memo = new Map();
    memo.set(model, resolved);
    return resolved;
  }

  function groupBook(group: string): GroupBook {
    const book = groups.get(group);
    if (book) return book;
    const unknown = listGroup(group);
    groups.set(group, unknown);
    logger.warn('a request named a price group the price book has not loaded; list prices until the next load', { group });
    return unknown;
  }

  /**
   * What a request for `model` by an account of `group` is priced at and sent as, or why it is refused
   * (see the file's head): the group's allowed list first, then its own price, else the list price × its
   * multiplier.
   */
  function resolve(model: string, group: string): ResolvedModel {
    const book = groupBook(group);
    const known = book.memo.get(model);
    if (known) return known;
    let resolved: ResolvedModel;
    if (book.allowed && !allowedBy(model, book.allowed)) resolved = { kind: 'not_allowed' };
    else {
      const own = matchPattern(model, book.overrides);
      if (own.kind === 'match') resolved = { kind: 'priced', model: own.exact ? own.pattern : model.trim(), price: own.value };
      else if (own.kind === 'variant_unlisted') resolved = { kind: 'variant_unlisted', base: own.base };
      else {
        const listed = resolveListed(model);
        resolved = listed.kind === 'priced' ? { ...listed, price: priceForGroup(listed.price, book.group.multiplierPpm) } : listed;
      }
    }
    if (book.memo.size >= MEMO_LIMIT) book.memo = new Map();
    book.memo.set(model, resolved);
    return resolved;
  }

  /**
   * The price shown for a model to an account of `group` (the catalog): a refused variant shows its base's
   * price, a refused unpriced model the TOKEN_PRICE default (× the multiplier). A request is priced through resolve().
   */
  function priceOf(model: string, group: string = defaultGroup): ModelPrice {
    const resolved = resolve(model, group);
    if (resolved.kind === 'priced') return resolved.price;
    if (resolved.kind === 'variant_unlisted') {
      const base = resolve(resolved.base, group);
      if (base.kind === 'priced') return base.price;
    }
    return priceForGroup(fallback, groupBook(group).group.multiplierPpm);
  }

  /** The list price of a model (the admin's price table view): no group applied. */
  function listPriceOf(model: string): ModelPrice {
    const resolved = resolveListed(model);
    if (resolved.kind === 'priced') return resolved.price;
    if (resolved.kind === 'variant_unlisted') {
      const base = resolveListed(resolved.base);
      if (base.kind === 'priced') return base.price;
    }
    return fallback;
  }

  /** A model of the catalog with its prices per token for `group`, as OpenRouter's list shows them. */
  function withPricing(model: { id: string; [k: string]: unknown }, group: string) {
    const price = priceOf(model.id, group);
    // A per-second model (transcription) shows its price a second of audio; its tokens are not charged.
    if (price.perSecondNano !== undefined) return { ...model, pricing: { prompt: '0', completion: '0', audio_second: perSecondText(price.perSecondNano) } };
    return {
      ...model,
      pricing: {
        prompt: perTokenText(price.promptNanoPerMillion),
        completion: perTokenText(price.completionNanoPerMillion),
        // OpenRouter's names: a prompt token read from the provider's cache, and one written to it.
        input_cache_read: perTokenText(price.cachedPromptNanoPerMillion ?? price.promptNanoPerMillion),
        input_cache_write: perTokenText(price.cacheWriteNanoPerMillion ?? price.promptNanoPerMillion),
      },
    };
  }

  /** One model, as GET /v1/models/{id} answers. */
  function pricedModelJson(model: { id: string; [k: string]: unknown }, group: string = defaultGroup): string {
    return JSON.stringify(withPricing(model, group));
  }

  /**
   * The upstream's model list with Conduit's prices for `group` (default: the default group's):
   * `pricing: {prompt, completion}` per token as decimal strings, replacing whatever the upstream published
   * (its own prices, in its own currency). The JSON is kept per group until the list or the tables change.
   */
  function pricedListJson(list: { data: { id: string; [k: string]: unknown }[] }, group: string = defaultGroup): string {
    const kept = priced.get(group);
    if (kept && kept.source === list && kept.version === version) return kept.body;
    // Only what a request may ask for: a refused variant, a model outside the group's list or (UNPRICED_MODELS=refuse) an unpriced model is left out.
    const data = list.data.filter((model) => resolve(model.id, group).kind === 'priced').map((model) => withPricing(model, group));
    const body = JSON.stringify({ ...list, data });
    if (priced.size >= 1000) priced = new Map();
    priced.set(group, { source: list, version, body });
    return body;
  }

  async function list(executor: Executor = db): Promise<PriceRow[]> {
    return executor.select().from(modelPrices).orderBy(asc(modelPrices.pattern));
  }

  async function listGroups(executor: Executor = db): Promise<PriceGroup[]> {
    return executor
      .select({
        name: priceGroups.name,
        title: priceGroups.title,
        multiplierPpm: priceGroups.multiplierPpm,
        allowedModels: priceGroups.allowedModels,
        isDefault: priceGroups.isDefault,
      })
      .from(priceGroups)
      .orderBy(asc(priceGroups.name));
  }

  async function listOverrides(executor: Executor = db): Promise<GroupPriceRow[]> {
    return executor.select().from(priceGroupPrices).orderBy(asc(priceGroupPrices.groupName), asc(priceGroupPrices.pattern));
  }

  const reload = coalescedReload(() =>
    Promise.all([list(), listGroups(), listOverrides()])
      .then(([rows, groupRows, overrideRows]) => install(rows, groupRows, overrideRows))
      .catch((error) => logger.error('could not load the price table; keeping the last copy', { error })),
  );

  /** Tells every instance (this one included, at commit) that the table changed. */
  async function announce(executor: Executor) {
    await executor.execute(sql`select pg_notify(${PRICES_CHANGED_CHANNEL}, '')`);
  }

  return {
    priceOf,
    listPriceOf,
    resolve,
    costOf,
    pricedListJson,
    pricedModelJson,
    /** The TOKEN_PRICE default, per 1M tokens. */
    fallback,
    /** What a row without cache prices of its own derives them from (CACHE_READ_PRICE_RATIO, CACHE_WRITE_PRICE_RATIO). */
    cacheRatios: ratios,
    list,
    listGroups,
    listOverrides,
    reload,
    /** The group new accounts get and anonymous visitors see prices of. */
    get defaultGroup() {
      return defaultGroup;
    },
    /** Whether the book has loaded `group` (a group it has not is priced at list prices until it has). */
    knowsGroup(group: string): boolean {
      return groups.get(group)?.loaded === true;
    },
    /**
     * Creates or replaces rows in one transaction. With `executor` it writes inside the caller's
     * transaction and leaves the reload to the commit's notification (reading through the pool while
     * that transaction is open would wait forever on PGlite's single connection).
     */
    async upsert(rows: PriceWrite[], executor?: Executor): Promise<void> {
      if (rows.length === 0) return;
      const write = async (tx: Executor) => {
        for (const row of rows) {
          await tx
            .insert(modelPrices)
            .values({ ...row, updatedAt: new Date() })
            .onConflictDoUpdate({
              target: modelPrices.pattern,
              set: {
                promptNanoPerMillion: row.promptNanoPerMillion,
                completionNanoPerMillion: row.completionNanoPerMillion,
                kind: row.kind ?? 'per_token',
                perSecondNano: row.perSecondNano ?? 0n,
                cachedPromptNanoPerMillion: row.cachedPromptNanoPerMillion ?? null,
                cacheWriteNanoPerMillion: row.cacheWriteNanoPerMillion ?? null,
                updatedAt: new Date(),
              },
            });
        }
        await announce(tx);
      };
      if (executor) return write(executor);
      await db.transaction(write);
      await reload();
    },

    /** Removes a row; false when there was none. */
    async remove(pattern: string, executor?: Executor): Promise<boolean> {
      const run = async (tx: Executor) => {
        const gone = await tx.delete(modelPrices).where(eq(modelPrices.pattern, pattern)).returning({ p: modelPrices.pattern });
        if (gone.length > 0) await announce(tx);
        return gone.length > 0;
      };
      if (executor) return run(executor);
      const removed = await db.transaction(run);
      await reload();
      return removed;
    },

    async start() {
      unlisten = await database.listen(
        PRICES_CHANGED_CHANNEL,
        () => void reload(),
        () => void reload(),
      );
      await reload();
      timer = setInterval(() => void reload(), refreshMs);
      timer.unref?.();
    },

    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await unlisten?.().catch(() => {});
      unlisten = null;
    },
  };
}

export type PriceBook = ReturnType<typeof createPriceBook>;
