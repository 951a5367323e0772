// Idempotency-Key on /v1 (as Stripe and OpenAI-style APIs honour it): a client that repeats a request
// with the same key within 24 h, because it never saw the answer, must not be charged twice. The first
// request claims the key with the body's hash, for the API key that sent it when that key is key-scoped
// (another key of the same user never gets its answer), for the user when it is account-scoped; a repeat with the same body gets the stored
// answer (non-streaming), or 409 naming the first request while that one still runs or when it was a
// stream (a stream cannot be replayed); the same key with another body is 400. A request that fails
// gives its key back, so the client's retry can run.
import { createHash } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { idempotencyKeys } from './tables';
import { AppError, errorCodes } from '../http/errors';
import { gatewayMessages } from './texts';
import type { Logger } from '../logger';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const TTL_HOURS = 24;

export type IdempotencyStart = { kind: 'claimed' } | { kind: 'replay'; response: Response };

/** Whose the key is: the user's, and within it the API key's when that key is key-scoped (null: the user's). */
export interface IdempotencyOwner {
  userId: string;
  keyId: string | null;
}

/**
 * The key as stored: a key-scoped API key's keys are prefixed with its id and a space, which no client's
 * key can hold (KEY_PATTERN), so no key of one namespace can name one of another.
 */
const slotOf = (owner: IdempotencyOwner, key: string) => (owner.keyId === null ? key : `${owner.keyId} ${key}`);

export function createIdempotency({ db }: { db: Database }) {
  return {
    /** Claims the key for this request, or answers the repeat; throws 400/409 as the file's head says. */
    async begin(owner: IdempotencyOwner, clientKey: string, bodyText: string, requestId: string, stream: boolean): Promise<IdempotencyStart> {
      if (!KEY_PATTERN.test(clientKey)) {
        throw new AppError('invalid_request_error', gatewayMessages.idempotencyKeyInvalid, {
          param: 'Idempotency-Key',
          code: errorCodes.idempotencyKeyInvalid,
        });
      }
      const { userId } = owner;
      const key = slotOf(owner, clientKey);
      const bodyHash = createHash('sha256').update(bodyText).digest('hex');
      // A key whose 24 hours are over is free again: the same statement takes it over.
      const claimed = await db
        .insert(idempotencyKeys)
        .values({
          userId,
          key,
          bodyHash,
          requestId,
          state: 'in_flight',
          stream,
          expiresAt: sql`now() + make_interval(hours => ${TTL_HOURS})`,
        })
        .onConflictDoUpdate({
          target: [idempotencyKeys.userId, idempotencyKeys.key],
          set: {
            bodyHash,
            requestId,
            state: 'in_flight',
            stream,
            responseStatus: null,
            responseBody: null,
            responseContentType: null,
            createdAt: sql`now()`,
            expiresAt: sql`now() + make_interval(hours => ${TTL_HOURS})`,
          },
          setWhere: lt(idempotencyKeys.expiresAt, sql`now()`),
        })
        .returning({ requestId: idempotencyKeys.requestId });
      if (claimed.length > 0) return { kind: 'claimed' };

      const [first] = await db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)))
        .limit(1);
      // Gone between the two statements (the first request failed and gave it back): try once more.
      if (!first) return this.begin(owner, clientKey, bodyText, requestId, stream);
      if (first.bodyHash !== bodyHash) {
        throw new AppError('invalid_request_error', gatewayMessages.idempotencyKeyReused, {
          param: 'Idempotency-Key',
          code: errorCodes.idempotencyKeyReused,
        });
      }
      if (first.state === 'in_flight') {
        throw new AppError('conflict', gatewayMessages.idempotencyInFlight(first.requestId), {
          code: errorCodes.idempotencyInProgress,
        });
      }
      if (first.stream || first.responseStatus === null || first.responseBody === null) {
        throw new AppError('conflict', gatewayMessages.idempotencyStream(first.requestId), {
          code: errorCodes.idempotencyNotReplayable,
        });
      }
      return {
        kind: 'replay',
        response: new Response(first.responseBody, {
          status: first.responseStatus,
          headers: {
            'content-type': first.responseContentType ?? 'application/json',
            'idempotent-replayed': 'true',
            'x-idempotent-request-id': first.requestId,
          },
        }),
      };
    },

    /** The answer went out: keep it (its body only when it was not a stream). */
    async complete(owner: IdempotencyOwner, clientKey: string, answer: { status: number; body: string | null; contentType: string | null }) {
      const { userId } = owner;
      const key = slotOf(owner, clientKey);
      await db
        .update(idempotencyKeys)
        .set({ state: 'done', responseStatus: answer.status, responseBody: answer.body, responseContentType: answer.contentType })
        .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)));
    },

    /** The request failed before an answer: the key is free for the client's retry. */
    async release(owner: IdempotencyOwner, clientKey: string) {
      const { userId } = owner;
      const key = slotOf(owner, clientKey);
      await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)));
    },

    /** Drops keys past their 24 hours. */
    async purge(): Promise<number> {
      const gone = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, sql`now()`)).returning({ key: idempotencyKeys.key });
      return gone.length;
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;

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
