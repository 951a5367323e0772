// What the admin routes accept: zod only, so an operator's page can validate its forms with the very
// schemas the server applies. Money arrives as JSON numbers in currency units and leaves these schemas
// as exact nano-units (bigint), or the request is refused: nothing is rounded silently.
import { z } from 'zod';
import { isCalendarDay } from '../http/date-input';
import { adminMessages } from './texts';
import { unitsToNano } from '../money';
import { PRICE_PATTERN } from '../pricing/pattern';
import { AUDIT_ACTIONS } from './audit-actions';

/** Largest credit or correction in one request, currency units. */
export const CREDIT_MAX_UNITS = 1_000_000_000;
/** Largest price per 1M tokens, currency units. */
export const PRICE_MAX_UNITS = 1_000_000_000;
/** Longest period of the daily figures. */
export const STATS_MAX_DAYS = 366;
export const IMPORT_MAX_MODELS = 2000;

const DAY_TEXT = /^\d{4}-\d{2}-\d{2}$/;

/** A JSON number of currency units as exact nano-units within [min, max]; zero only when allowed. */
function nanoAmount(options: { min: number; max: number; allowZero: boolean; message: string }) {
  return z.number({ error: options.message }).transform((value, ctx) => {
    const nano = value >= options.min && value <= options.max ? unitsToNano(value) : null;
    if (nano === null || (!options.allowZero && nano === 0n)) {
      ctx.addIssue({ code: 'custom', message: options.message });
      return z.NEVER;
    }
    return nano;
  });
}

export const userIdInput = z.object({ id: z.string().max(100) });

export const listUsersInput = z.object({
  search: z.string().trim().max(254).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

export const creditInput = z.object({
  id: z.string().max(100),
  amount: nanoAmount({
    min: -CREDIT_MAX_UNITS,
    max: CREDIT_MAX_UNITS,
    allowZero: false,
    message: adminMessages.creditAmountInvalid(CREDIT_MAX_UNITS),
  }),
  reason: z.string({ error: adminMessages.creditReasonRequired }).trim().min(1, adminMessages.creditReasonRequired).max(500, adminMessages.creditReasonRequired),
  // Trimmed: an operator pasting a ticket number twice must not credit twice because of a space.
  reference: z
    .string({ error: adminMessages.creditReferenceInvalid })
    .trim()
    .min(1, adminMessages.creditReferenceInvalid)
    .max(200, adminMessages.creditReferenceInvalid),
});

const day = z
  .string()
  .meta({ format: 'date', description: 'День UTC в формате ГГГГ-ММ-ДД', example: '2026-01-31' })
  .regex(DAY_TEXT, adminMessages.statsDateInvalid)
  .refine(isCalendarDay, adminMessages.statsDateInvalid);

const DAY_MS = 86_400_000;
const todayUtc = () => new Date().toISOString().slice(0, 10);
const daysBefore = (last: string, n: number) => new Date(Date.parse(`${last}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);

/** Both ends included; without them, the last 30 days up to today (UTC). */
export const dailyStatsInput = z
  .object({ from: day.optional(), to: day.optional() })
  .transform(({ from, to }) => {
    const last = to ?? todayUtc();
    return { from: from ?? daysBefore(last, 29), to: last };
  })
  // The figures are read from `from` up to the day after `to`: both must be days PostgreSQL takes (a
  // default `from` 29 days before 0001-01-05, or the day after 9999-12-31, is not).
  .refine(({ from, to }) => isCalendarDay(from) && isCalendarDay(daysBefore(to, -1)), {
    message: adminMessages.statsDateInvalid,
    path: ['to'],
  })
  .refine(({ from, to }) => from <= to && Date.parse(to) - Date.parse(from) < STATS_MAX_DAYS * DAY_MS, {
    message: adminMessages.statsRangeInvalid(STATS_MAX_DAYS),
  });

export const auditInput = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: z.string().max(200).optional(),
    targetId: z.string().max(200).optional(),
    action: z.enum(AUDIT_ACTIONS, { error: adminMessages.auditActionInvalid }).optional(),
    /** Part of an e-mail: the rows of the matching accounts, as operator or as target. */
    email: z.string().trim().max(254).optional(),
    from: day.optional(),
    to: day.optional(),
  })
  .refine(({ from, to }) => !from || !to || from <= to, { message: adminMessages.auditRangeInvalid, path: ['to'] });

export const pricePattern = z
  .string({ error: adminMessages.pricePatternInvalid })
  .trim()
  .max(200, adminMessages.pricePatternInvalid)
  .regex(PRICE_PATTERN, adminMessages.pricePatternInvalid);

const perMillion = nanoAmount({
  min: 0,
  max: PRICE_MAX_UNITS,
  allowZero: true,
  message: adminMessages.priceValueInvalid(PRICE_MAX_UNITS),
});

/** A price a second of audio (a `per_second` row: transcription models), currency units. */
const perSecond = nanoAmount({
  min: 0,
  max: PRICE_MAX_UNITS,
  allowZero: true,
  message: adminMessages.priceValueInvalid(PRICE_MAX_UNITS),
});

/** A price row's fields (the price table's, a price group's own prices'). */
export const priceRowShape = {
  pattern: pricePattern,
  /** per_token (default): prompt and completion per 1M tokens; per_second: `perSecond` a second of audio. */
  kind: z.enum(['per_token', 'per_second'], { error: adminMessages.priceKindInvalid }).default('per_token'),
  promptPerMillion: perMillion.optional(),
  completionPerMillion: perMillion.optional(),
  perSecond: perSecond.optional(),
};

/** A price row names the prices its kind charges. */
export function checkPriceRow(
  input: { kind: 'per_token' | 'per_second'; promptPerMillion?: bigint | undefined; completionPerMillion?: bigint | undefined; perSecond?: bigint | undefined },
  ctx: z.RefinementCtx,
) {
  if (input.kind === 'per_second' && input.perSecond === undefined) {
    ctx.addIssue({ code: 'custom', path: ['perSecond'], message: adminMessages.pricePerSecondMissing });
  }
  if (input.kind === 'per_token') {
    for (const field of ['promptPerMillion', 'completionPerMillion'] as const) {
      if (input[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: adminMessages.priceValueInvalid(PRICE_MAX_UNITS) });
    }
  }
}

export const putPriceInput = z
  .object({
    ...priceRowShape,
    /** Per 1M prompt tokens read from the provider's cache; null or absent: prompt × CACHE_READ_PRICE_RATIO. */
    cachedPromptPerMillion: perMillion.nullable().optional(),
    /** Per 1M prompt tokens written to the provider's cache; null or absent: prompt × CACHE_WRITE_PRICE_RATIO. */
    cacheWritePerMillion: perMillion.nullable().optional(),
  })
  .superRefine(checkPriceRow);

export const deletePriceInput = z.object({ pattern: pricePattern });

/** Exchange rate and margin in one factor: upstream USD per token × 1e6 × multiplier = ours per 1M tokens. */
const multiplier = z
  .number({ error: adminMessages.priceMultiplierInvalid })
  .gt(0, adminMessages.priceMultiplierInvalid)
  .max(1_000_000, adminMessages.priceMultiplierInvalid);

export const importPreviewInput = z.object({
  multiplier,
  filter: z.string().trim().max(200).optional(),
});

export const importInput = z.object({
  multiplier,
  models: z
    .array(z.string().min(1).max(200), { error: adminMessages.priceImportEmpty })
    .min(1, adminMessages.priceImportEmpty)
    .max(IMPORT_MAX_MODELS, adminMessages.priceImportEmpty),
});

/** Most targets one route may list; more than any real failover chain needs. */
export const ROUTE_MAX_TARGETS = 20;

const providerName = z
  .string({ error: adminMessages.providerNameInvalid })
  .trim()
  .min(1, adminMessages.providerNameInvalid)
  .max(100, adminMessages.providerNameInvalid);

/** An http(s) URL; `bare`: without a query or a fragment. */
function isHttpUrl(value: string, { bare }: { bare: boolean }): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && (!bare || (!url.search && !url.hash));
  } catch {
    return false;
  }
}

/** An http(s) base URL to which `/chat/completions` is appended; a trailing slash is dropped. */
const providerBaseUrl = z
  .string({ error: adminMessages.providerBaseUrlInvalid })
  .trim()
  .max(500, adminMessages.providerBaseUrlInvalid)
  .refine((value) => isHttpUrl(value, { bare: true }), adminMessages.providerBaseUrlInvalid)
  .transform((value) => value.replace(/\/+$/, ''));

/** The provider's key, write-only; null removes it. Printable ASCII only: it goes into an HTTP header. */
const providerApiKey = z
  .string({ error: adminMessages.providerApiKeyInvalid })
  .trim()
  .min(1, adminMessages.providerApiKeyInvalid)
  .max(1000, adminMessages.providerApiKeyInvalid)
  .regex(/^[\x21-\x7e]+$/, adminMessages.providerApiKeyInvalid)
  .nullable();

/** Bounded as UPSTREAM_TIMEOUT_MS is. */
const providerTimeoutMs = z
  .number({ error: adminMessages.providerTimeoutInvalid })
  .int(adminMessages.providerTimeoutInvalid)
  .min(100, adminMessages.providerTimeoutInvalid)
  .max(250_000, adminMessages.providerTimeoutInvalid);

/** The API the provider speaks: OpenAI's chat completions (default) or Anthropic's Messages. */
const providerProtocol = z.enum(['openai', 'anthropic'], { error: adminMessages.providerProtocolInvalid });

export const providerIdInput = z.object({ id: z.string().max(100) });

/** The model a probe asks for one token (a host without /models); null: the probe is GET /models. */
const providerProbeModel = z
  .string({ error: adminMessages.providerProbeModelInvalid })
  .trim()
  .min(1, adminMessages.providerProbeModelInvalid)
  .max(200, adminMessages.providerProbeModelInvalid)
  .regex(/^[\x21-\x7e]+$/, adminMessages.providerProbeModelInvalid)
  .nullable();

/** Where the provider's balance is read (GET with its key); null: OpenRouter's /credits for OpenRouter, else none. */
const providerBalanceUrl = z
  .string({ error: adminMessages.providerBalanceUrlInvalid })
  .trim()
  .max(500, adminMessages.providerBalanceUrlInvalid)
  .refine((value) => isHttpUrl(value, { bare: false }), adminMessages.providerBalanceUrlInvalid)
  .nullable();

/** The balance's place in that URL's JSON answer, dot-separated (`data.balance`, `balances.0.amount`). */
const providerBalancePath = z
  .string({ error: adminMessages.providerBalancePathInvalid })
  .trim()
  .max(200, adminMessages.providerBalancePathInvalid)
  .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, adminMessages.providerBalancePathInvalid)
  .nullable();

/** Below this balance (the provider's own currency) the operators are mailed once per crossing; null: never. */
const providerBalanceThreshold = nanoAmount({ min: 0, max: 1_000_000_000, allowZero: true, message: adminMessages.providerBalanceThresholdInvalid }).nullable();

export const createProviderInput = z.object({
  name: providerName,
  baseUrl: providerBaseUrl,
  apiKey: providerApiKey.optional(),
  enabled: z.boolean().default(true),
  timeoutMs: providerTimeoutMs.default(60_000),
  protocol: providerProtocol.default('openai'),
  probeModel: providerProbeModel.optional(),
  balanceUrl: providerBalanceUrl.optional(),
  balancePath: providerBalancePath.optional(),
  balanceThreshold: providerBalanceThreshold.optional(),
});

export const patchProviderInput = z.object({
  id: z.string().max(100),
  name: providerName.optional(),
  baseUrl: providerBaseUrl.optional(),
  apiKey: providerApiKey.optional(),
  enabled: z.boolean().optional(),
  timeoutMs: providerTimeoutMs.optional(),
  protocol: providerProtocol.optional(),
  probeModel: providerProbeModel.optional(),
  balanceUrl: providerBalanceUrl.optional(),
  balancePath: providerBalancePath.optional(),
  balanceThreshold: providerBalanceThreshold.optional(),
});

const routeTarget = z.object({
  providerId: z.string({ error: adminMessages.routeProviderUnknown }).min(1, adminMessages.routeProviderUnknown).max(100, adminMessages.routeProviderUnknown),
  priority: z
    .number({ error: adminMessages.routePriorityInvalid })
    .int(adminMessages.routePriorityInvalid)
    .min(0, adminMessages.routePriorityInvalid)
    .max(1000, adminMessages.routePriorityInvalid)
    .default(0),
  weight: z
    .number({ error: adminMessages.routeWeightInvalid })
    .int(adminMessages.routeWeightInvalid)
    .min(1, adminMessages.routeWeightInvalid)
    .max(1000, adminMessages.routeWeightInvalid)
    .default(1),
  model: z
    .string({ error: adminMessages.routeModelInvalid })
    .trim()
    .min(1, adminMessages.routeModelInvalid)
    .max(200, adminMessages.routeModelInvalid)
    .regex(/^[\x21-\x7e]+$/, adminMessages.routeModelInvalid)
    .optional(),
  /** What the provider charges us, per 1M tokens in the balance currency: the admin stats' provider cost and margin. */
  costPrice: z.object({ promptPerMillion: perMillion, completionPerMillion: perMillion }, { error: adminMessages.priceValueInvalid(PRICE_MAX_UNITS) }).optional(),
});

export const putRouteInput = z.object({
  pattern: pricePattern,
  targets: z
    .array(routeTarget, { error: adminMessages.routeTargetsInvalid(ROUTE_MAX_TARGETS) })
    .min(1, adminMessages.routeTargetsInvalid(ROUTE_MAX_TARGETS))
    .max(ROUTE_MAX_TARGETS, adminMessages.routeTargetsInvalid(ROUTE_MAX_TARGETS)),
});

export const deleteRouteInput = z.object({ pattern: pricePattern });
