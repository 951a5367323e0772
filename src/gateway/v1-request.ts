// Reading a billed /v1 request the same way on every route (chat, embeddings, responses): its JSON body under
// the limit, the model it is priced at, and the key its own things are kept under.
import { readBodyText } from '../http/body';
import { AppError, errorCodes } from '../http/errors';
import { assertJsonDepth } from '../http/json';
import { errorMessages } from '../http/messages';
import { gatewayMessages } from './texts';
import type { ModelPrice, PriceBook } from '../pricing/prices';

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
 * The model a /v1 request is priced at and sent as (PriceBook.resolve) for the payer's price group: the id
 * that was priced, with its price; a model outside the group's list is 403 model_not_allowed, a variant
 * without a price of its own, or an unpriced model under UNPRICED_MODELS=refuse, 400 model_not_found, all
 * before anything is reserved or sent.
 */
export function pricedModel(prices: Pick<PriceBook, 'resolve'>, requested: string, group: string): { model: string; price: ModelPrice } {
  const resolved = prices.resolve(requested, group);
  if (resolved.kind === 'priced') return resolved;
  const shown = requested.trim().slice(0, 200);
  if (resolved.kind === 'not_allowed') throw new AppError('forbidden', gatewayMessages.modelNotAllowed(shown), { param: 'model', code: errorCodes.modelNotAllowed });
  throw new AppError(
    'invalid_request_error',
    resolved.kind === 'variant_unlisted' ? gatewayMessages.modelVariantUnlisted(shown, resolved.base) : gatewayMessages.modelUnpriced(shown),
    { param: 'model', code: errorCodes.modelNotFound },
  );
}

/**
 * The API key a key's own things (its Idempotency-Keys, the responses it stored) are kept under: itself
 * when it is key-scoped, none (the whole account's) when it is account-scoped (keys/scope.ts).
 */
export function ownKeyId(key: { keyId: string; scope: 'key' | 'account' }): string | null {
  return key.scope === 'account' ? null : key.keyId;
}
