// POST /v1/embeddings: key → reservation for the input → upstream /embeddings → settlement at the model's
// prompt price. Every field but model and input passes to the upstream untouched (encoding_format,
// dimensions, user), and the upstream's answer reaches the client as it came.
import { COST_HEADER, costText, withUsageCost } from './answer-cost';
import { z } from 'zod';
import type { Config } from '../config';
import { validationError } from '../http/errors';
import { requestIdOf } from '../http/request-id';
import type { Logger } from '../logger';
import type { KeyVerifier } from '../keys';
import type { PriceBook } from '../pricing/prices';
import type { Billing } from './billing';
import { keyPayer, type ChatHandler, type ChatObserver, type Payer } from './chat';
import { type Idempotency, withIdempotency } from './idempotency';
import { MODEL_ID } from './request';
import { BYTE_BOUND_LIMIT, countTextsTokens } from './tokens';
import { askRouted } from './routing/failover';
import type { Routing } from './routing/registry';
import { failureRecorder, tokenCount } from './settlement';
import { pricedModel, ownKeyId, readJsonObject } from './v1-request';
import type { PayerGroups } from './price-group';
import { readWholeAnswer } from './whole-answer';

/** OpenAI's own limit on the inputs of one request. */
const MAX_INPUTS = 2048;

const tokenId = z.number({ error: 'токен должен быть целым неотрицательным числом' }).int().min(0);
const INPUT_ERROR = 'input должен быть строкой, массивом строк, массивом токенов или массивом массивов токенов';

export const embeddingsRequestSchema = z
  .object({
    model: z
      .string({ error: 'Укажите model в формате <владелец>/<модель>' })
      .max(200)
      .regex(MODEL_ID, 'model должен иметь вид <владелец>/<модель>, например openai/text-embedding-3-small'),
    input: z.union(
      [
        z.string().min(1, 'input не может быть пустой строкой'),
        z.array(z.string().min(1, 'строка input не может быть пустой')).min(1, 'input не может быть пустым').max(MAX_INPUTS),
        z.array(tokenId).min(1, 'input не может быть пустым').max(MAX_INPUTS),
        z.array(z.array(tokenId).min(1, 'массив токенов не может быть пустым')).min(1, 'input не может быть пустым').max(MAX_INPUTS),
      ],
      { error: INPUT_ERROR },
    ),
    encoding_format: z.enum(['float', 'base64'], { error: 'encoding_format должен быть float или base64' }).optional(),
    dimensions: z.number({ error: 'dimensions должен быть целым положительным числом' }).int().positive().optional(),
    user: z.string({ error: 'user должен быть строкой' }).optional(),
  })
  .loose();

export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;
type Input = EmbeddingsRequest['input'];

/** The input as its texts and token arrays (a flat token array is one input). */
function inputParts(input: Input): (string | number[])[] {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as (string | number[])[];
}

/**
 * Tokens to reserve for the input, never fewer than the tokenizer counts: a token array counts its
 * length, a text its UTF-8 bytes (each BPE token stands for at least one byte), as chat's reservation does.
 * Past BYTE_BOUND_LIMIT, where bytes would hold several times the real cost, texts are counted instead.
 */
export function reserveInputTokens(input: Input): number {
  let bytes = 0;
  let tokens = 0;
  for (const part of inputParts(input)) {
    if (typeof part === 'string') bytes += Buffer.byteLength(part, 'utf8');
    else tokens += part.length;
  }
  return bytes <= BYTE_BOUND_LIMIT ? tokens + bytes : countInputTokens(input);
}

/**
 * The input's tokens as the tokenizer counts them, for an upstream that reports no usage and for large
 * inputs' reservations; past the per-request tokenizer budget the rest is extrapolated, so a body full of
 * text cannot stall the event loop.
 */
export function countInputTokens(input: Input): number {
  const parts = inputParts(input);
  let tokens = 0;
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else tokens += part.length;
  }
  return tokens + countTextsTokens(texts);
}

export interface EmbeddingsHandlerDeps {
  config: Pick<Config, 'bodyLimitBytes' | 'upstreamMaxBodyBytes' | 'upstreamTimeoutMs'>;
  /** Chat's key check, so every /v1 route refuses the same keys and shares the per-key rate limit. */
  authenticate: ChatHandler['authenticate'];
  verifier: Pick<KeyVerifier, 'markUsed'>;
  prices: PriceBook;
  /** The payer's price group (price-group.ts). */
  priceGroups: PayerGroups;
  billing: Billing;
  routing: Routing;
  logger: Logger;
  observer?: Pick<ChatObserver, 'upstreamResponded' | 'failedOver'>;
  idempotency?: Idempotency;
}

export function createEmbeddingsHandler(deps: EmbeddingsHandlerDeps) {
  const { config, authenticate, verifier, prices, priceGroups, billing, routing, logger, observer, idempotency } = deps;

  async function embed(payer: Payer, requested: EmbeddingsRequest, requestedText: string, requestId: string, clientSignal: AbortSignal | null) {
    const started = performance.now();
    // The id that was priced is the one recorded and sent upstream.
    const { model, price } = pricedModel(prices, requested.model, await priceGroups(payer));
    const body = model === requested.model ? requested : { ...requested, model };
    const text = model === requested.model ? requestedText : JSON.stringify({ ...(JSON.parse(requestedText) as object), model });
    // Embeddings generate nothing: the input is the whole cost, at the prompt price.
    const reserveNano = prices.costOf(price, reserveInputTokens(body.input), 0).totalNano;
    const base = {
      userId: payer.userId,
      apiKeyId: payer.apiKeyId,
      agentId: payer.agentId,
      requestId,
      endpoint: 'embeddings' as const,
      model: body.model,
      stream: false,
    };
    const reservation = await billing.reserve(payer.userId, reserveNano, { price, key: payer.keyLimit ?? null, member: payer.memberLimit ?? null, request: base });
    const fail = failureRecorder(billing, reservation, base, started);

    // An upstream without the endpoint answers 404: passed through like any 4xx.
    const { response, call } = await askRouted({
      routing,
      model: body.model,
      body: text,
      send: (provider, sent, signal) => provider.embeddings(sent, signal),
      clientSignal,
      fail,
      facts: base,
      logger,
      requestId,
      observer,
    });
    // Embeddings are billed by their input: that much was asked for whatever came back.
    const answer = await readWholeAnswer(response, call, {
      billing,
      logger,
      reservation,
      base,
      started,
      fail,
      maxBytes: config.upstreamMaxBodyBytes,
      tooLargeTokens: () => ({ promptTokens: countInputTokens(body.input), completionTokens: 0 }),
    });

    let reported: number | null = null;
    try {
      const parsed = JSON.parse(answer) as { usage?: { prompt_tokens?: unknown; total_tokens?: unknown } | null };
      if (parsed?.usage && typeof parsed.usage === 'object' && (parsed.usage.prompt_tokens ?? parsed.usage.total_tokens) !== undefined) {
        reported = tokenCount(parsed.usage.prompt_tokens ?? parsed.usage.total_tokens);
      }
    } catch {
      // Not JSON: relayed as it is, billed by the input's count.
    }
    const promptTokens = reported ?? countInputTokens(body.input);
    const { costNano } = billing.settle(reservation, {
      ...base,
      promptTokens,
      // total = prompt: nothing of an embedding is billed at the completion price.
      completionTokens: 0,
      totalTokens: promptTokens,
      status: 'ok',
      usageSource: reported !== null ? 'upstream' : 'tokenizer',
      upstreamStatus: response.status,
      durationMs: Math.round(performance.now() - started),
    });
    const cost = costText(costNano);
    return new Response(withUsageCost(answer, cost, { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens }), {
      status: response.status,
      headers: { 'content-type': response.headers.get('content-type') ?? 'application/json', [COST_HEADER]: cost },
    });
  }

  return {
    /** The /v1/embeddings route. */
    async handle(request: Request): Promise<Response> {
      const key = await authenticate(request);
      const { text, json } = await readJsonObject(request, config.bodyLimitBytes);
      const parsed = embeddingsRequestSchema.safeParse(json);
      if (!parsed.success) throw validationError(parsed.error);
      verifier.markUsed(key.keyId);
      const requestId = requestIdOf(request);
      const payer = keyPayer(key);
      return withIdempotency({ idempotency, logger }, request, { owner: { userId: key.userId, keyId: ownKeyId(key) }, text, requestId, stream: false }, () =>
        embed(payer, parsed.data, text, requestId, request.signal),
      );
    },
  };
}

export type EmbeddingsHandler = ReturnType<typeof createEmbeddingsHandler>;
