// Operators' side of routing: the providers (their keys sealed by the secret box, read back masked) and
// the routes from model ids to providers. Each change and its audit row are one transaction that
// announces the change to every instance (NOTIFY, delivered at commit); this instance then reloads at
// once, so the operator's next request already goes the new way. The built-in provider `default` is the
// environment's upstream: listed, routable, and only re-enabled here after it refused our key.
import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import type { Config } from '../config';
import { maskSecret, type SecretBox } from '../crypto/secret-box';
import type { Database, Executor } from '../db/client';
import { modelRoutes, providerHealth, providers } from '../gateway/tables';
import { type Billing, DEFAULT_PROVIDER_ID, type Protocol, ROUTING_CHANGED_CHANNEL, type Routing, type RouteTarget } from '../gateway';
import { AppError } from '../http/errors';
import { adminMessages } from './texts';
import { nanoToUnits } from '../money';
import { recordAudit, type AuditActor, type JsonObject } from './audit';
import { EMPTY_HOUR, providerLastHour, type ProviderHourStats } from './provider-stats';

export interface AdminProvidersDeps {
  db: Database;
  routing: Pick<Routing, 'reload' | 'health' | 'attempts'>;
  box: Pick<SecretBox, 'seal'>;
  billing: Pick<Billing, 'flush'>;
  config: Pick<Config, 'upstreamBaseUrl' | 'upstreamApiKey' | 'upstreamTimeoutMs' | 'upstreamProtocol'>;
}

type ProviderRow = typeof providers.$inferSelect;
type HealthRow = typeof providerHealth.$inferSelect;

function healthView(row: HealthRow | undefined) {
  return {
    state: (row?.state ?? 'up') as 'up' | 'cooling_down' | 'disabled',
    consecutiveFailures: row?.consecutiveFailures ?? 0,
    cooldownUntil: row?.cooldownUntil ? row.cooldownUntil.toISOString() : null,
    lastError: row?.lastError ?? null,
    lastFailureAt: row?.lastFailureAt ? row.lastFailureAt.toISOString() : null,
  };
}

/** A provider as the audit log keeps it: never its key, only whether it has one. */
function audited(row: ProviderRow): JsonObject {
  return { name: row.name, baseUrl: row.baseUrl, hasApiKey: row.apiKeySealed !== null, enabled: row.enabled, timeoutMs: row.timeoutMs, protocol: row.protocol };
}

/** The protocol a stored row names; anything else is read as the default. */
const protocolOf = (value: string): Protocol => (value === 'anthropic' ? 'anthropic' : 'openai');

const announce = (tx: Executor) => tx.execute(sql`select pg_notify(${ROUTING_CHANGED_CHANNEL}, '')`);

export function createAdminProviders({ db, routing, box, billing, config }: AdminProvidersDeps) {
  const builtIn = (health: HealthRow | undefined, lastHour: ProviderHourStats) => ({
    id: DEFAULT_PROVIDER_ID,
    name: DEFAULT_PROVIDER_ID,
    baseUrl: config.upstreamBaseUrl,
    apiKey: config.upstreamApiKey ? maskSecret(config.upstreamApiKey) : null,
    enabled: true,
    timeoutMs: config.upstreamTimeoutMs,
    protocol: config.upstreamProtocol,
    health: healthView(health),
    lastHour,
  });

  const view = (row: ProviderRow, health: HealthRow | undefined, lastHour: ProviderHourStats) => ({
    id: row.id,
    name: row.name,
    baseUrl: row.baseUrl,
    // The sealed text is masked, never opened: a read cannot leak the key, whatever the mask shows.
    apiKey: row.apiKeySealed === null ? null : maskSecret(row.apiKeySealed),
    enabled: row.enabled,
    timeoutMs: row.timeoutMs,
    protocol: protocolOf(row.protocol),
    health: healthView(health),
    lastHour,
  });

  async function healthOf(executor: Executor, id: string): Promise<HealthRow | undefined> {
    const [row] = await executor.select().from(providerHealth).where(eq(providerHealth.providerId, id));
    return row;
  }

  /** The hour's figures, this instance's attempt counts and usage rows still waiting to be written included. */
  async function lastHour() {
    await Promise.all([billing.flush(), routing.attempts.flush()]);
    return providerLastHour(db);
  }

  async function get(id: string) {
    if (id === DEFAULT_PROVIDER_ID) {
      const [health, hour] = await Promise.all([healthOf(db, id), lastHour()]);
      return builtIn(health, hour.get(id) ?? EMPTY_HOUR);
    }
    const [row] = await db.select().from(providers).where(eq(providers.id, id));
    if (!row) throw new AppError('not_found', adminMessages.providerNotFound);
    const [health, hour] = await Promise.all([healthOf(db, id), lastHour()]);
    return view(row, health, hour.get(id) ?? EMPTY_HOUR);
  }

  /** Patterns of the routes that send to a provider. */
  async function routesUsing(executor: Executor, id: string): Promise<string[]> {
    const rows = await executor.select().from(modelRoutes).orderBy(asc(modelRoutes.pattern));
    return rows.filter((r) => r.targets.some((t) => t.providerId === id)).map((r) => r.pattern);
  }

  return {
    async list() {
      const [rows, health, hour] = await Promise.all([
        db.select().from(providers).orderBy(asc(providers.createdAt), asc(providers.id)),
        db.select().from(providerHealth),
        lastHour(),
      ]);
      const byId = new Map(health.map((h) => [h.providerId, h]));
      const hourOf = (id: string) => hour.get(id) ?? EMPTY_HOUR;
      return {
        data: [builtIn(byId.get(DEFAULT_PROVIDER_ID), hourOf(DEFAULT_PROVIDER_ID)), ...rows.map((r) => view(r, byId.get(r.id), hourOf(r.id)))],
      };
    },

    get,

    async create(
      actor: AuditActor,
      input: { name: string; baseUrl: string; apiKey?: string | null | undefined; enabled: boolean; timeoutMs: number; protocol?: Protocol | undefined },
    ) {
      const id = randomUUID();
      await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(providers)
          .values({
            id,
            name: input.name,
            baseUrl: input.baseUrl,
            apiKeySealed: input.apiKey ? box.seal(input.apiKey) : null,
            enabled: input.enabled,
            timeoutMs: input.timeoutMs,
            protocol: input.protocol ?? 'openai',
          })
          .returning();
        await announce(tx);
        await recordAudit(tx, actor, { action: 'provider.create', targetType: 'provider', targetId: id, before: null, after: audited(row!) });
      });
      await routing.reload();
      return get(id);
    },

    /** Any change puts the provider back in service: an operator fixing a refused key expects it to be tried. */
    async update(
      actor: AuditActor,
      id: string,
      patch: {
        name?: string | undefined;
        baseUrl?: string | undefined;
        apiKey?: string | null | undefined;
        enabled?: boolean | undefined;
        timeoutMs?: number | undefined;
        protocol?: Protocol | undefined;
      },
    ) {
      if (id === DEFAULT_PROVIDER_ID) {
        if (Object.values(patch).some((v) => v !== undefined && v !== true)) {
          throw new AppError('invalid_request_error', adminMessages.providerBuiltIn);
        }
        await db.transaction(async (tx) => {
          const before = await healthOf(tx, id);
          await routing.health.reset(tx, id);
          await recordAudit(tx, actor, {
            action: 'provider.update',
            targetType: 'provider',
            targetId: id,
            before: { state: before?.state ?? 'up' },
            after: { state: 'up' },
          });
        });
        return get(id);
      }
      await db.transaction(async (tx) => {
        const [before] = await tx.select().from(providers).where(eq(providers.id, id)).for('update');
        if (!before) throw new AppError('not_found', adminMessages.providerNotFound);
        const [after] = await tx
          .update(providers)
          .set({
            ...(patch.name !== undefined ? { name: patch.name } : {}),
            ...(patch.baseUrl !== undefined ? { baseUrl: patch.baseUrl } : {}),
            ...(patch.apiKey !== undefined ? { apiKeySealed: patch.apiKey === null ? null : box.seal(patch.apiKey) } : {}),
            ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
            ...(patch.timeoutMs !== undefined ? { timeoutMs: patch.timeoutMs } : {}),
            ...(patch.protocol !== undefined ? { protocol: patch.protocol } : {}),
            updatedAt: sql`now()`,
          })
          .where(eq(providers.id, id))
          .returning();
        await routing.health.reset(tx, id);
        await announce(tx);
        const changed = audited(after!);
        // A new key is a change the masked view would not show.
        if (patch.apiKey !== undefined) changed.apiKeyChanged = true;
        await recordAudit(tx, actor, { action: 'provider.update', targetType: 'provider', targetId: id, before: audited(before), after: changed });
      });
      await routing.reload();
      return get(id);
    },

    async remove(actor: AuditActor, id: string) {
      if (id === DEFAULT_PROVIDER_ID) throw new AppError('invalid_request_error', adminMessages.providerBuiltIn);
      await db.transaction(async (tx) => {
        const used = await routesUsing(tx, id);
        if (used.length > 0) throw new AppError('conflict', adminMessages.providerInUse(used.slice(0, 10).join(', ')));
        const [before] = await tx.delete(providers).where(eq(providers.id, id)).returning();
        if (!before) throw new AppError('not_found', adminMessages.providerNotFound);
        await tx.delete(providerHealth).where(eq(providerHealth.providerId, id));
        await announce(tx);
        await recordAudit(tx, actor, { action: 'provider.delete', targetType: 'provider', targetId: id, before: audited(before), after: null });
      });
      await routing.reload();
    },

    async listRoutes() {
      const rows = await db.select().from(modelRoutes).orderBy(asc(modelRoutes.pattern));
      return { routes: rows.map((r) => ({ pattern: r.pattern, targets: r.targets.map(targetView), updatedAt: r.updatedAt.toISOString() })) };
    },

    async putRoute(actor: AuditActor, pattern: string, targets: RouteTargetInput[]) {
      const stored = targets.map((t) => ({
        providerId: t.providerId,
        priority: t.priority,
        weight: t.weight,
        ...(t.model !== undefined ? { model: t.model } : {}),
        // Exact nano-units as decimal text: jsonb has no bigint.
        ...(t.costPrice !== undefined
          ? { costPrice: { promptNanoPerMillion: t.costPrice.promptPerMillion.toString(), completionNanoPerMillion: t.costPrice.completionPerMillion.toString() } }
          : {}),
      }));
      const saved = await db.transaction(async (tx) => {
        const known = new Set((await tx.select({ id: providers.id }).from(providers)).map((p) => p.id));
        known.add(DEFAULT_PROVIDER_ID);
        const unknown = stored.findIndex((t) => !known.has(t.providerId));
        if (unknown >= 0) {
          throw new AppError('invalid_request_error', adminMessages.routeProviderUnknown, { param: `targets.${unknown}.providerId` });
        }
        const [before] = await tx.select().from(modelRoutes).where(eq(modelRoutes.pattern, pattern)).for('update');
        const [after] = await tx
          .insert(modelRoutes)
          .values({ pattern, targets: stored, updatedAt: sql`now()` })
          .onConflictDoUpdate({ target: modelRoutes.pattern, set: { targets: stored, updatedAt: sql`now()` } })
          .returning();
        await announce(tx);
        await recordAudit(tx, actor, {
          action: 'route.upsert',
          targetType: 'route',
          targetId: pattern,
          before: before ? { targets: before.targets } : null,
          after: { targets: stored },
        });
        return after!;
      });
      await routing.reload();
      return { pattern: saved.pattern, targets: saved.targets.map(targetView), updatedAt: saved.updatedAt.toISOString() };
    },

    async removeRoute(actor: AuditActor, pattern: string) {
      await db.transaction(async (tx) => {
        const [before] = await tx.delete(modelRoutes).where(eq(modelRoutes.pattern, pattern)).returning();
        if (!before) throw new AppError('not_found', adminMessages.modelRouteNotFound);
        await announce(tx);
        await recordAudit(tx, actor, { action: 'route.delete', targetType: 'route', targetId: pattern, before: { targets: before.targets }, after: null });
      });
      await routing.reload();
    },
  };
}

export type AdminProviders = ReturnType<typeof createAdminProviders>;

/** A route target as an operator gives it: a cost price in nano-units (input.ts turns the amounts into them). */
export type RouteTargetInput = Omit<RouteTarget, 'costPrice' | 'cost'> & {
  costPrice?: { promptPerMillion: bigint; completionPerMillion: bigint } | undefined;
};

/** A stored target as the admin API shows it: the cost price in the balance currency per 1M tokens. */
function targetView(t: (typeof modelRoutes.$inferSelect)['targets'][number]) {
  const { costPrice, ...rest } = t;
  return costPrice
    ? {
        ...rest,
        costPrice: {
          promptPerMillion: nanoToUnits(BigInt(costPrice.promptNanoPerMillion)),
          completionPerMillion: nanoToUnits(BigInt(costPrice.completionNanoPerMillion)),
        },
      }
    : rest;
}
