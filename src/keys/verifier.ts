// API key verification for the hot path: an in-memory cache in front of the database, emptied of a key
// the moment it is revoked (here at once, on other instances through PostgreSQL NOTIFY), and last-use
// times written in batches.
import { hashApiKey, looksLikeApiKey } from './api-keys';
import type { DatabaseHandle } from '../db/client';
import type { Logger } from '../logger';
import { KEY_REVOKED_CHANNEL, USER_KEYS_CHANGED_CHANNEL, type KeyService, type VerifiedKey } from './service';

interface Entry {
  key: VerifiedKey | null;
  expiresAt: number;
}

export interface KeyVerifierOptions {
  database: DatabaseHandle;
  keys: Pick<KeyService, 'findByHash' | 'recordLastUsed'>;
  logger: Logger;
  /** A safety net should a notification be lost: entries are looked up again after this long. */
  ttlMs?: number;
  /** Unknown keys are remembered briefly so a flood of wrong keys does not reach the database. */
  negativeTtlMs?: number;
  maxEntries?: number;
  lastUsedFlushMs?: number;
  /** Told of every key whose record changed (revoked, new limit) here or on another instance. */
  onKeyChanged?: (keyId: string) => void;
}

export function createKeyVerifier(options: KeyVerifierOptions) {
  const { database, keys, logger } = options;
  const ttlMs = options.ttlMs ?? 60_000;
  const negativeTtlMs = options.negativeTtlMs ?? 5_000;
  const maxEntries = options.maxEntries ?? 100_000;
  const lastUsedFlushMs = options.lastUsedFlushMs ?? 10_000;

  const cache = new Map<string, Entry>();
  const hashById = new Map<string, string>();
  const inFlight = new Map<string, Promise<VerifiedKey | null>>();
  /** Key id → last use (epoch ms): a number, not a Date, since every /v1 request sets it. */
  let lastUsed = new Map<string, number>();
  /**
   * Bumped by every invalidation. A lookup that started before one may have read the key as it was
   * before the change: its answer is not cached, and later callers do not join it.
   */
  let generation = 0;
  let flushTimer: ReturnType<typeof setInterval> | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  let unlistenUsers: (() => Promise<void>) | null = null;

  function remember(hash: string, key: VerifiedKey | null) {
    if (cache.size >= maxEntries) {
      // Maps iterate in insertion order: dropping the oldest tenth keeps memory bounded.
      let drop = Math.ceil(maxEntries / 10);
      for (const [h, e] of cache) {
        cache.delete(h);
        if (e.key) hashById.delete(e.key.keyId);
        if (--drop === 0) break;
      }
    }
    cache.set(hash, { key, expiresAt: Date.now() + (key ? ttlMs : negativeTtlMs) });
    if (key) hashById.set(key.keyId, hash);
  }

  function invalidate(keyId: string) {
    generation += 1;
    inFlight.clear();
    const hash = hashById.get(keyId);
    if (hash) cache.delete(hash);
    hashById.delete(keyId);
    options.onKeyChanged?.(keyId);
  }

  /** Drops every cached key of a user (blocked or unblocked): rare, so a scan is fine. */
  function invalidateUser(userId: string) {
    generation += 1;
    inFlight.clear();
    for (const [hash, entry] of cache) {
      if (entry.key?.userId === userId) {
        cache.delete(hash);
        hashById.delete(entry.key.keyId);
      }
    }
  }

  async function flushLastUsed() {
    if (lastUsed.size === 0) return;
    const batch = lastUsed;
    lastUsed = new Map();
    try {
      await keys.recordLastUsed(batch);
    } catch (error) {
      logger.error('could not write key last-use times; keeping them for the next try', { error });
      for (const [id, at] of batch) if (!lastUsed.has(id)) lastUsed.set(id, at);
    }
  }

  return {
    /** The key behind a presented secret, or null when there is none; cached. */
    async resolve(presented: string): Promise<VerifiedKey | null> {
      if (!looksLikeApiKey(presented)) return null;
      const hash = hashApiKey(presented);
      const entry = cache.get(hash);
      if (entry && entry.expiresAt > Date.now()) return entry.key;
      const startedAt = generation;
      let lookup = inFlight.get(hash);
      if (!lookup) {
        const started = keys.findByHash(hash);
        lookup = started.finally(() => {
          if (inFlight.get(hash) === lookup) inFlight.delete(hash);
        });
        inFlight.set(hash, lookup);
      }
      const key = await lookup;
      if (generation !== startedAt) {
        // A revocation (or a new limit) arrived while the row was being read: read it again, and cache nothing.
        return keys.findByHash(hash);
      }
      remember(hash, key);
      return key;
    },

    /** Notes a use of the key; written within lastUsedFlushMs. */
    markUsed(keyId: string) {
      lastUsed.set(keyId, Date.now());
    },

    invalidate,
    invalidateUser,
    flushLastUsed,

    async start() {
      unlisten = await database.listen(
        KEY_REVOKED_CHANNEL,
        (keyId) => invalidate(keyId),
        // A revocation may have passed while the listener was away: trust nothing cached before it.
        () => {
          generation += 1;
          inFlight.clear();
          cache.clear();
          hashById.clear();
        },
      );
      unlistenUsers = await database.listen(
        USER_KEYS_CHANGED_CHANNEL,
        (userId) => invalidateUser(userId),
        () => {
          cache.clear();
          hashById.clear();
        },
      );
      flushTimer = setInterval(() => void flushLastUsed(), lastUsedFlushMs);
      flushTimer.unref?.();
    },

    async stop() {
      if (flushTimer) clearInterval(flushTimer);
      flushTimer = null;
      await flushLastUsed();
      await unlisten?.().catch(() => {});
      await unlistenUsers?.().catch(() => {});
      unlisten = null;
      unlistenUsers = null;
    },
  };
}

export type KeyVerifier = ReturnType<typeof createKeyVerifier>;
