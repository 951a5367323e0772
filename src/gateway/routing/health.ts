// Providers' health, shared by every instance: PROVIDER_FAILURE_THRESHOLD failures in a row, or
// ceil(PROVIDER_FAILURE_RATIO × PROVIDER_FAILURE_WINDOW) faults among this instance's last
// PROVIDER_FAILURE_WINDOW verdicts (failure-window.ts), put a provider in `cooling_down` for
// PROVIDER_COOLDOWN_SECONDS, after which one trial request decides (half-open); a provider that refuses our
// credentials or account (upstream-fault.ts: 401/407, a 402 out of funds, a 403 naming our key or account,
// a 429 out of quota) is `disabled` until an operator changes it, until it answers again when it was tried
// as the last resort, or until a probe finds it answering (probes.ts: probeSucceeded). Only the provider's own faults count: a
// moderation refusal counts for nothing, and a timeout only once per account a minute across every
// instance (timedOut, the `provider_timeouts` table).
//
// The hot path reads an in-memory copy only. The database is written when the health changes (a failure,
// a recovery from failures), never for a success of a healthy provider; each write announces the row it
// left (NOTIFY), so every instance's copy follows within one notification, and an instance that starts,
// or whose listener reconnects, reads every row. Counting failures in the database (an increment, not a
// value each instance computed) makes failures seen by different instances add up.
//
// Half-open is decided per instance: once the cooldown is over, each instance lets one request through
// and the first verdict written (a success resets the row, a failure starts a new cooldown) is what all
// of them follow.
import type { Config } from '../../config';
import type { DatabaseHandle, Executor } from '../../db/client';
import { sql } from 'drizzle-orm';
import type { Logger } from '../../logger';
import { createFailureWindow } from './failure-window';

export const PROVIDER_HEALTH_CHANNEL = 'conduit_provider_health';

/** How long one account's timeout at a provider stands for all of its timeouts there (health.timedOut). */
export const TIMEOUT_WINDOW_MS = 60_000;
/** Accounts remembered per provider for that; past it the expired ones are forgotten. */
const TIMEOUT_WITNESSES_KEPT = 10_000;

export type ProviderState = 'up' | 'cooling_down' | 'disabled';

export interface ProviderHealth {
  state: ProviderState;
  consecutiveFailures: number;
  /** Epoch ms; set while cooling down (and kept after, for the record). */
  cooldownUntil: number | null;
  lastError: string | null;
  /** Epoch ms of the last failure: "the least recently failed" is tried when every target is cooling. */
  lastFailureAt: number | null;
}

/** What a request may do with a provider now. */
export type Admission = 'go' | 'trial' | 'cooling' | 'disabled';

const HEALTHY: ProviderHealth = { state: 'up', consecutiveFailures: 0, cooldownUntil: null, lastError: null, lastFailureAt: null };

interface HealthRow {
  provider_id: string;
  state: string;
  consecutive_failures: number;
  cooldown_until: string | Date | null;
  last_error: string | null;
  last_failure_at: string | Date | null;
}

const epoch = (value: string | Date | null): number | null => {
  if (value === null || value === undefined) return null;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
};

function healthOf(row: HealthRow): ProviderHealth {
  const state: ProviderState = row.state === 'cooling_down' || row.state === 'disabled' ? row.state : 'up';
  return {
    state,
    consecutiveFailures: Number(row.consecutive_failures) || 0,
    cooldownUntil: epoch(row.cooldown_until),
    lastError: row.last_error,
    lastFailureAt: epoch(row.last_failure_at),
  };
}

/** PostgreSQL text holds no NUL; an upstream's message is cut short enough for a log line and a column. */
export const storable = (text: string) => text.replaceAll('\0', '').toWellFormed().slice(0, 500);

// The row as written, announced in the same statement: the notification leaves at commit, so no instance
// hears of a state the database does not hold.
const FAILURE_SQL = `
with h as (
  insert into provider_health as p (provider_id, state, consecutive_failures, cooldown_until, last_error, last_failure_at, updated_at)
  values ($1, case when $2::boolean then 'disabled' when $3::int <= 1 then 'cooling_down' else 'up' end, 1,
          case when not $2::boolean and $3::int <= 1 then now() + make_interval(secs => $4::double precision) end,
          $5, $6::timestamptz, now())
  on conflict (provider_id) do update set
    consecutive_failures = p.consecutive_failures + 1,
    state = case when $2::boolean or p.state = 'disabled' then 'disabled'
                 when p.consecutive_failures + 1 >= $3::int then 'cooling_down' else p.state end,
    cooldown_until = case when $2::boolean or p.state = 'disabled' then p.cooldown_until
                          when p.state = 'cooling_down' and p.cooldown_until > now() then p.cooldown_until
                          when p.consecutive_failures + 1 >= $3::int then now() + make_interval(secs => $4::double precision)
                          else p.cooldown_until end,
    last_error = excluded.last_error, last_failure_at = greatest(p.last_failure_at, $6::timestamptz), updated_at = now()
  returning p.provider_id, p.state, p.consecutive_failures, p.cooldown_until, p.last_error, p.last_failure_at
)
select h.*, pg_notify('${PROVIDER_HEALTH_CHANNEL}', row_to_json(h)::text) from h`;

// One account's timeout at a provider: a row, or a row older than the window renewed, says it counts.
const TIMEOUT_WITNESS_SQL = `
insert into provider_timeouts as t (provider_id, account, at) values ($1, $2, now())
on conflict (provider_id, account) do update set at = now()
  where t.at <= now() - make_interval(secs => $3::double precision)
returning 1 as counted`;

const RECOVERY_SQL = `
with h as (
  update provider_health set state = 'up', consecutive_failures = 0, updated_at = now()
  where provider_id = $1 and (consecutive_failures > 0 or state <> 'up')
  returning provider_id, state, consecutive_failures, cooldown_until, last_error, last_failure_at
)
select h.*, pg_notify('${PROVIDER_HEALTH_CHANNEL}', row_to_json(h)::text) from h`;

export interface HealthStoreOptions {
  database: Pick<DatabaseHandle, 'listen' | 'query'>;
  config: Pick<Config, 'providerFailureThreshold' | 'providerCooldownSeconds'> & Partial<Pick<Config, 'providerFailureRatio' | 'providerFailureWindow'>>;
  logger: Logger;
  /** Safety net for a lost notification. */
  refreshMs?: number;
  /** A provider this instance saw enter cooling_down or disabled (for the metrics). */
  onStateChange?: (providerId: string, state: 'cooling_down' | 'disabled') => void;
}

export function createHealthStore(options: HealthStoreOptions) {
  const { database, config, logger } = options;
  const refreshMs = options.refreshMs ?? 60_000;
  const threshold = config.providerFailureThreshold;
  const cooldownMs = config.providerCooldownSeconds * 1000;
  const ratioRule = createFailureWindow({ window: config.providerFailureWindow ?? 0, ratio: config.providerFailureRatio ?? 1 });
  let health = new Map<string, ProviderHealth>();
  /** Providers whose half-open trial this instance has sent and not yet heard back from. */
  const trials = new Set<string>();
  /** Per provider, the accounts whose timeouts were counted there and when: one account counts once a window. */
  const timeoutWitnesses = new Map<string, Map<string, number>>();
  let unlisten: (() => Promise<void>) | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;

  function apply(row: HealthRow) {
    const next = healthOf(row);
    const before = health.get(row.provider_id) ?? HEALTHY;
    // The count only grows until a reset to 0: a row with fewer failures than this copy knows of was
    // overtaken by a write still on its way (concurrent failures announce 1, 2, 3… in commit order).
    const stale = next.consecutiveFailures > 0 && next.consecutiveFailures < before.consecutiveFailures && next.state !== 'disabled';
    if (stale) return;
    health.set(row.provider_id, next);
    if (next.state !== 'cooling_down' || next.consecutiveFailures < before.consecutiveFailures) trials.delete(row.provider_id);
  }

  async function reload() {
    try {
      const rows = await database.query<HealthRow>(
        'select provider_id, state, consecutive_failures, cooldown_until, last_error, last_failure_at from provider_health',
      );
      const next = new Map<string, ProviderHealth>();
      for (const row of rows) next.set(row.provider_id, healthOf(row));
      health = next;
    } catch (error) {
      logger.error('could not read the providers’ health; keeping the last copy', { error });
    }
  }

  /**
   * This instance's health writes of each provider, one after another: a failure's write still on its way
   * (each runs on any connection of the pool) must not land after the recovery that followed it and mark a
   * provider that answered again as failing, or disabled until an operator steps in.
   */
  const writing = new Map<string, Promise<void>>();

  function write(text: string, params: unknown[], providerId: string): Promise<void> {
    const previous = writing.get(providerId) ?? Promise.resolve();
    const done: Promise<void> = previous.then(() => record(text, params, providerId));
    writing.set(providerId, done);
    void done.then(() => {
      if (writing.get(providerId) === done) writing.delete(providerId);
    });
    return done;
  }

  function record(text: string, params: unknown[], providerId: string): Promise<void> {
    return database
      .query<HealthRow>(text, params)
      .then((rows) => {
        for (const row of rows) apply(row);
      })
      .catch((error) => logger.warn('could not record a provider’s health', { providerId, error }));
  }

  /**
   * A failed attempt: counted here at once (so this instance stops sending before the database answers)
   * and in the database, whose row every instance then follows. `refused`: the provider refused our
   * credentials or account.
   */
  function failed(providerId: string, detail: string, refused: boolean) {
    trials.delete(providerId);
    const before = health.get(providerId) ?? HEALTHY;
    const failures = before.consecutiveFailures + 1;
    // The ratio rule trips as if this failure were the threshold's: the same cooldown, through the same write.
    const tripped = ratioRule.failed(providerId);
    const limit = tripped ? 1 : threshold;
    const now = Date.now();
    const stillCooling = before.state === 'cooling_down' && before.cooldownUntil !== null && before.cooldownUntil > now;
    const next: ProviderHealth = {
      consecutiveFailures: failures,
      lastError: storable(detail),
      lastFailureAt: now,
      state: refused || before.state === 'disabled' ? 'disabled' : failures >= limit ? 'cooling_down' : before.state,
      cooldownUntil: stillCooling ? before.cooldownUntil : !refused && failures >= limit ? now + cooldownMs : before.cooldownUntil,
    };
    health.set(providerId, next);
    // Told where it is seen (this copy changes before the database answers, so that answer changes nothing).
    if (next.state === 'disabled' && before.state !== 'disabled') {
      options.onStateChange?.(providerId, 'disabled');
      logger.error('provider disabled: it refused our credentials or account; an operator must fix it', { providerId, lastError: next.lastError });
    }
    if (next.state === 'cooling_down' && !stillCooling) {
      options.onStateChange?.(providerId, 'cooling_down');
      logger.warn(tripped ? 'provider cooling down: too many faults among its last requests' : 'provider cooling down after failures in a row', {
        providerId,
        failures,
        lastError: next.lastError,
      });
    }
    // The failure's own time, not the database's at the write: writes of two providers run on two
    // connections, and "least recently failed" must follow the order the failures happened in.
    void write(FAILURE_SQL, [providerId, refused, limit, cooldownMs / 1000, storable(detail), new Date(now).toISOString()], providerId);
  }

  return {
    get(providerId: string): ProviderHealth {
      return health.get(providerId) ?? HEALTHY;
    },

    /** Whether a request may call the provider now; 'trial' reserves this instance's one half-open request. */
    admit(providerId: string, now = Date.now()): Admission {
      const h = health.get(providerId);
      if (!h || h.state === 'up') return 'go';
      if (h.state === 'disabled') return 'disabled';
      if (h.cooldownUntil !== null && now < h.cooldownUntil) return 'cooling';
      if (trials.has(providerId)) return 'cooling';
      trials.add(providerId);
      return 'trial';
    },

    /** A failed attempt (see failed() above). */
    failed,

    /**
     * A request that had no answer in time. A slow answer can be the request's own doing (a huge prompt, a
     * long answer asked for without streaming), so a timeout counts as a failure only for an account whose
     * timeout at this provider was not counted in the last TIMEOUT_WINDOW_MS, on any instance (the
     * `provider_timeouts` row it leaves; this instance's own copy spares the database a write for repeats):
     * one client sending slow requests counts once a window, and only many clients left without an answer
     * cool a provider down.
     */
    timedOut(providerId: string, account: string, detail: string, now = Date.now()) {
      trials.delete(providerId);
      let seen = timeoutWitnesses.get(providerId);
      if (!seen) timeoutWitnesses.set(providerId, (seen = new Map()));
      const last = seen.get(account);
      if (last !== undefined && now - last < TIMEOUT_WINDOW_MS) return;
      if (seen.size >= TIMEOUT_WITNESSES_KEPT) {
        for (const [who, at] of seen) if (now - at >= TIMEOUT_WINDOW_MS) seen.delete(who);
        if (seen.size >= TIMEOUT_WITNESSES_KEPT) seen.clear();
      }
      seen.set(account, now);
      void database
        .query<{ counted: number }>(TIMEOUT_WITNESS_SQL, [providerId, account, TIMEOUT_WINDOW_MS / 1000])
        .then(
          (rows) => rows.length > 0,
          (error) => {
            logger.warn('could not record a provider timeout’s account; counting it', { providerId, error });
            return true;
          },
        )
        .then((counted) => {
          if (counted) failed(providerId, detail, false);
        });
    },

    /** An answer came (a 2xx, or the client's own 4xx): a provider that had failed is healthy again. */
    succeeded(providerId: string) {
      trials.delete(providerId);
      ratioRule.succeeded(providerId);
      const before = health.get(providerId);
      // With a write of this provider still on its way, this copy may read healthy only because an older
      // recovery's row came back after the failure that followed it: the failure's write would then be the
      // last, and the provider stay counted as failing. The recovery goes after it (a no-op when nothing failed).
      if (!before || (before.state === 'up' && before.consecutiveFailures === 0 && !writing.has(providerId))) return;
      health.set(providerId, { ...before, state: 'up', consecutiveFailures: 0 });
      void write(RECOVERY_SQL, [providerId], providerId);
    },

    /**
     * A probe found the provider answering (probes.ts): back in service on every instance, through the same
     * write and notification as a request's success; resolves once the database holds it. Written whatever
     * this copy says, since the probing instance acts on the database's row.
     */
    probeSucceeded(providerId: string): Promise<void> {
      trials.delete(providerId);
      const before = health.get(providerId);
      if (before) health.set(providerId, { ...before, state: 'up', consecutiveFailures: 0 });
      return write(RECOVERY_SQL, [providerId], providerId);
    },

    /** The attempt ended without a verdict (the client left): the trial may be sent again. */
    released(providerId: string) {
      trials.delete(providerId);
    },

    /**
     * An operator changed the provider (a new key, re-enabled…): it starts healthy. Runs in the operator's
     * transaction; every instance hears it at commit.
     */
    async reset(tx: Executor, providerId: string) {
      ratioRule.forget(providerId);
      await tx.execute(sql`delete from provider_health where provider_id = ${providerId}`);
      const row: HealthRow = {
        provider_id: providerId,
        state: 'up',
        consecutive_failures: 0,
        cooldown_until: null,
        last_error: null,
        last_failure_at: null,
      };
      await tx.execute(sql`select pg_notify(${PROVIDER_HEALTH_CHANNEL}, ${JSON.stringify(row)})`);
    },

    reload,

    async start() {
      unlisten = await database.listen(
        PROVIDER_HEALTH_CHANNEL,
        (payload) => {
          try {
            apply(JSON.parse(payload) as HealthRow);
          } catch (error) {
            logger.warn('ignored a provider health notification that is not a row', { error });
          }
        },
        () => void reload(),
      );
      await reload();
      timer = setInterval(() => {
        void reload();
        // Accounts counted long ago are no witnesses any more.
        database
          .query(`delete from provider_timeouts where at < now() - make_interval(secs => $1::double precision)`, [(TIMEOUT_WINDOW_MS * 5) / 1000])
          .catch((error) => logger.warn('could not drop old provider timeouts', { error }));
      }, refreshMs);
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

export type HealthStore = ReturnType<typeof createHealthStore>;
