// Issue 29's two measurements, as phases of `npm run bench` (run.ts drives them after the compare phases):
//
//   routes    what routing costs: the same Conduit at plain c=64 with no routes and with BENCH_ROUTE_COUNT
//             routes (50) over BENCH_PROVIDER_COUNT providers (5), in alternating phases (A B, B A, …).
//   failover  what failing over costs: at c=1, a model routed to a provider that answers 503 at once and
//             then to a healthy one, against a model routed straight to the healthy one, less the failed
//             attempt's own time (the 503 as a client sees it, straight from the fake upstream).
//
// Routes are read by every instance from the database, so "with" and "without" cannot be two instances on
// one database. One instance is switched instead: the bench writes the providers and routes in SQL and sends
// the NOTIFY an admin's change sends (conduit_routing_changed), then probes with a real request until the
// fake upstream sees it arrive on the base path the new state sends it to. Conduit keeps the routes in
// memory, so a state costs the same however it was reached; only the warm-up after a switch is discarded.
//
// Every provider is the one fake upstream under a base path of its own (`/bench-p1/v1`, …, `/fail/v1`),
// which counts requests per path: that is how the bench checks that every routed request failed over, and
// that no request of a "without" phase was routed.
import type postgres from 'postgres';
import type { LoadGenerator, LoadResult } from './loadgen';

const env = process.env;
const list = (value: string | undefined, fallback: string) =>
  (value ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export const routingSettings = {
  /** Which of the two run: `routes`, `failover`; empty: neither. */
  phases: new Set(list(env.BENCH_ROUTING, 'routes,failover')),
  /** Alternating rounds of the routes phases, each a phase without and one with routes. */
  rounds: Math.max(1, Math.floor(Number(env.BENCH_ROUTING_ROUNDS ?? 2))),
  routeCount: Math.floor(Number(env.BENCH_ROUTE_COUNT ?? 50)),
  providerCount: Math.floor(Number(env.BENCH_PROVIDER_COUNT ?? 5)),
  failoverConnections: Math.floor(Number(env.BENCH_FAILOVER_CONNECTIONS ?? 1)),
  /** Pause (ms) between an answer and the next request in the failover phases; 0: back to back. */
  failoverDelayMs: Number(env.BENCH_FAILOVER_DELAY_MS ?? 1),
};
for (const phase of routingSettings.phases) {
  if (phase !== 'routes' && phase !== 'failover') throw new Error(`BENCH_ROUTING=${env.BENCH_ROUTING}: a list of routes, failover (or empty)`);
}
if (!Number.isInteger(routingSettings.failoverDelayMs) || routingSettings.failoverDelayMs < 0) {
  throw new Error(`BENCH_FAILOVER_DELAY_MS=${env.BENCH_FAILOVER_DELAY_MS}: whole milliseconds, 0 or more`);
}
if (!(routingSettings.routeCount >= 1) || !(routingSettings.providerCount >= 1) || !(routingSettings.failoverConnections >= 1)) {
  throw new Error('BENCH_ROUTE_COUNT, BENCH_PROVIDER_COUNT, BENCH_FAILOVER_CONNECTIONS: whole numbers above 0');
}

/** Issue 29, "Measured". */
export const ROUTING_TARGETS = {
  /** Req/s routing may cost at plain c=64, with its routes against none. */
  routesCost: 0.02,
  /** What failing over may add to a request beyond the failed attempt's own time (ms, p50). */
  failoverAddedMs: 1,
};

/** Failures in a row before the failing provider cools down: the most Conduit accepts. */
export const FAILOVER_THRESHOLD = 1000;
/** How often the failing provider's health is reset during the failover phase (see resetFailing). */
const HEALTH_RESET_MS = 100;

const ROUTING_CHANNEL = 'conduit_routing_changed';
const HEALTH_CHANNEL = 'conduit_provider_health';
const FAILING_ID = 'bench-fail';
const HEALTHY_ID = 'bench-p1';
const FAILOVER_MODEL = 'bench/failover';
const DIRECT_MODEL = 'bench/direct';
const BENCH_MODEL = 'acme/chat';

type Mode = 'plain' | 'stream';
type State = 'none' | 'routes' | 'failover';

export interface CpuPerRequest {
  proxyUs: number;
  postgresUs: number;
  otherCores: number;
}

/** Conduit when a phase ended: requests answered whose usage rows were not written yet. */
export interface PhaseState {
  unwrittenRows: number;
}

/** What run.ts lends the routing phases. */
export interface RoutingContext {
  sql: postgres.Sql;
  fakeUrl: string;
  conduitUrl: string;
  apiKey: string;
  generator: LoadGenerator;
  workDir: string;
  durationS: number;
  warmupS: number;
  /** Connections of the routes phases (the first BENCH_HIGH). */
  highConnections: number;
  /** A load phase against Conduit for `model`, with run.ts's accounting (CPU, 2xx, rows); tag 'warmup' is discarded. */
  measure(
    mode: Mode,
    connections: number,
    seconds: number,
    tag: string,
    load: { model: string; delayMs?: number },
  ): Promise<{ result: LoadResult; cpu: CpuPerRequest; state?: PhaseState | undefined }>;
  /** A probe request Conduit answered 200 (it has its usage row like any other). */
  counted(): void;
  track(proc: Bun.Subprocess): void;
  log(msg: string): void;
}

export interface RoutingRow {
  phase: 'routes' | 'failover';
  /** routes: 'none' or 'routes'; failover: 'direct', 'routed' or 'failed attempt'. */
  label: string;
  connections: number;
  result: LoadResult;
  cpu: CpuPerRequest | null;
  /** Usage rows Conduit still had to write when the phase ended (null: not a Conduit phase). */
  unwrittenRows: number | null;
  /** Requests the fake upstream got per base path during the phase ('-': the environment's default provider). */
  byBase: Record<string, number>;
  /** 503s the failing provider gave during the phase. */
  failed: number;
  /** How long the switch to this phase's state took to show (ms), when the phase followed one. */
  switchMs?: number;
}

export interface RoutingOutcome {
  rows: RoutingRow[];
  /** Why a part did not run to the end, or null. */
  error: string | null;
}

export interface RoutingVerdict {
  name: string;
  ok: boolean | null;
  detail: string;
}

/** Seconds the routing phases take, for the run's deadline. */
export function routingSeconds(durationS: number, warmupS: number): number {
  let seconds = 0;
  if (routingSettings.phases.has('routes')) seconds += 2 * routingSettings.rounds * (warmupS + durationS + 3);
  if (routingSettings.phases.has('failover')) seconds += 3 * (warmupS + durationS + 2) + 5;
  return seconds;
}

/** Conduit settings the routing phases need (a BENCH_CONDUIT_ENV value wins). */
export function routingConduitEnv(): Record<string, string> {
  // Every routed request must fail over: the failing provider must never cool down (it would be skipped), by
  // faults in a row nor by its share of faults among its last requests (PROVIDER_FAILURE_WINDOW 0: that rule off).
  return routingSettings.phases.has('failover') ? { PROVIDER_FAILURE_THRESHOLD: String(FAILOVER_THRESHOLD), PROVIDER_FAILURE_WINDOW: '0' } : {};
}

const body = (model: string) =>
  JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello in five words.' },
    ],
    max_tokens: 16,
  });

interface FakeCounts {
  failed: number;
  byBase: Record<string, number>;
}

async function fakeCounts(fakeUrl: string): Promise<FakeCounts> {
  const stats = (await (await fetch(`${fakeUrl}/stats`)).json()) as FakeCounts;
  return { failed: stats.failed, byBase: { ...stats.byBase } };
}

function delta(before: FakeCounts, after: FakeCounts): FakeCounts {
  const byBase: Record<string, number> = {};
  for (const [base, n] of Object.entries(after.byBase)) {
    const d = n - (before.byBase[base] ?? 0);
    if (d) byBase[base] = d;
  }
  return { failed: after.failed - before.failed, byBase };
}

const providerId = (i: number) => `bench-p${i}`;

/**
 * Replaces every provider, route and health row with `state`'s, and tells Conduit as an admin's change
 * does. routes: BENCH_PROVIDER_COUNT providers and BENCH_ROUTE_COUNT routes, `acme/*` (what the bench's
 * acme/chat matches: two targets at priority 0 weighted 3:1, a third at priority 1) and the rest
 * alternating between exact ids `vendor<i>/model<i>` and prefixes `vendor<i>/*`, so acme/chat is looked up
 * in the exact map and then checked against every longer prefix before its own. failover: the failing
 * provider first and a healthy one second for bench/failover, the healthy one alone for bench/direct.
 */
async function applyState(sql: postgres.Sql, fakeUrl: string, state: State): Promise<void> {
  const { routeCount, providerCount } = routingSettings;
  await sql.begin(async (tx) => {
    await tx`delete from model_routes`;
    await tx`delete from providers`;
    await tx`delete from provider_health`;
    if (state === 'routes') {
      for (let i = 1; i <= providerCount; i++) {
        await tx`insert into providers (id, name, base_url, enabled, timeout_ms)
                 values (${providerId(i)}, ${`bench provider ${i}`}, ${`${fakeUrl}/${providerId(i)}/v1`}, true, 30000)`;
      }
      const p = (n: number) => providerId(((n - 1) % providerCount) + 1);
      const rows: { pattern: string; targets: unknown }[] = [
        {
          pattern: 'acme/*',
          targets: [
            { providerId: p(1), priority: 0, weight: 3 },
            { providerId: p(2), priority: 0, weight: 1 },
            { providerId: p(3), priority: 1, weight: 1 },
          ],
        },
      ];
      for (let i = 1; i < routeCount; i++) {
        rows.push({
          pattern: i % 2 === 1 ? `vendor${i}/model${i}` : `vendor${i}/*`,
          targets: [
            { providerId: p(i), priority: 0, weight: 1 },
            { providerId: p(i + 1), priority: 1, weight: 1 },
          ],
        });
      }
      for (const row of rows) {
        await tx`insert into model_routes (pattern, targets) values (${row.pattern}, ${tx.json(row.targets as postgres.JSONValue)})`;
      }
    }
    if (state === 'failover') {
      await tx`insert into providers (id, name, base_url, enabled, timeout_ms) values
               (${FAILING_ID}, 'bench provider that is down', ${`${fakeUrl}/fail/v1`}, true, 30000),
               (${HEALTHY_ID}, 'bench provider 1', ${`${fakeUrl}/${HEALTHY_ID}/v1`}, true, 30000)`;
      const failover = [
        { providerId: FAILING_ID, priority: 0, weight: 1 },
        { providerId: HEALTHY_ID, priority: 1, weight: 1 },
      ];
      await tx`insert into model_routes (pattern, targets) values
               (${FAILOVER_MODEL}, ${tx.json(failover)}),
               (${DIRECT_MODEL}, ${tx.json([{ providerId: HEALTHY_ID, priority: 0, weight: 1 }])})`;
    }
    await tx`select pg_notify(${ROUTING_CHANNEL}, '')`;
    await tx`select pg_notify(${HEALTH_CHANNEL}, ${JSON.stringify(healthyRow(FAILING_ID))})`;
  });
}

/** A provider_health row as an operator's change announces it: up, no failures. */
const healthyRow = (id: string) => ({
  provider_id: id,
  state: 'up',
  consecutive_failures: 0,
  cooldown_until: null,
  last_error: null,
  last_failure_at: null,
});

/**
 * The failing provider made healthy again, as an operator's PATCH does (health.reset): its row deleted and
 * a healthy row announced. Run every HEALTH_RESET_MS during the routed failover phases, so its failures in
 * a row stay below PROVIDER_FAILURE_THRESHOLD (1000, the most Conduit accepts, far fewer than a phase
 * sends) and it is not skipped: every routed request makes the failed attempt. Conduit's health writes can
 * lag behind the reset (a count written before it arrives after it), so the count may still reach the
 * threshold now and then; the next reset ends that cooldown, and the check on the fake's counts (one 503
 * per routed request) says whether any measured request was spared its failed attempt.
 */
async function resetFailing(sql: postgres.Sql): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`delete from provider_health where provider_id = ${FAILING_ID}`;
    await tx`select pg_notify(${HEALTH_CHANNEL}, ${JSON.stringify(healthyRow(FAILING_ID))})`;
  });
}

/** Switches Conduit to `state` and waits until a real request shows it took effect; returns the ms it took. */
async function switchTo(ctx: RoutingContext, state: State): Promise<number> {
  const started = performance.now();
  await applyState(ctx.sql, ctx.fakeUrl, state);
  const model = state === 'failover' ? DIRECT_MODEL : BENCH_MODEL;
  const landed = (d: FakeCounts) => {
    const bases = Object.keys(d.byBase);
    if (bases.length !== 1 || d.failed !== 0) return false;
    return state === 'none' ? bases[0] === '-' : state === 'failover' ? bases[0] === HEALTHY_ID : bases[0]!.startsWith('bench-p');
  };
  let last = '';
  while (performance.now() - started < 15_000) {
    const before = await fakeCounts(ctx.fakeUrl);
    const res = await fetch(`${ctx.conduitUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.apiKey}` },
      body: body(model),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`routing probe (${state}, ${model}): ${res.status} ${text.slice(0, 300)}`);
    ctx.counted();
    const d = delta(before, await fakeCounts(ctx.fakeUrl));
    if (landed(d)) return performance.now() - started;
    last = JSON.stringify(d);
    await Bun.sleep(50);
  }
  throw new Error(`Conduit did not take up the routing state '${state}' within 15 s (last probe reached the fake as ${last})`);
}

export async function runRoutingPhases(ctx: RoutingContext): Promise<RoutingOutcome> {
  const rows: RoutingRow[] = [];
  const { phases } = routingSettings;
  let error: string | null = null;
  try {
    if (phases.has('routes')) {
      const c = ctx.highConnections;
      for (let round = 0; round < routingSettings.rounds; round++) {
        const order: ('none' | 'routes')[] = round % 2 === 0 ? ['none', 'routes'] : ['routes', 'none'];
        for (const state of order) {
          const switchMs = await switchTo(ctx, state);
          if (ctx.warmupS > 0) await ctx.measure('plain', c, ctx.warmupS, 'warmup', { model: BENCH_MODEL });
          const before = await fakeCounts(ctx.fakeUrl);
          const { result, cpu, state: end } = await ctx.measure('plain', c, ctx.durationS, 'routing', { model: BENCH_MODEL });
          const d = delta(before, await fakeCounts(ctx.fakeUrl));
          const unwrittenRows = end?.unwrittenRows ?? null;
          rows.push({ phase: 'routes', label: state, connections: c, result, cpu, unwrittenRows, byBase: d.byBase, failed: d.failed, switchMs });
          ctx.log(`routing ${state.padEnd(6)} plain c=${c} ${line(result, cpu)}  upstream paths ${JSON.stringify(d.byBase)}`);
        }
      }
    }
    if (phases.has('failover')) {
      const c = routingSettings.failoverConnections;
      const switchMs = await switchTo(ctx, 'failover');
      const delayMs = routingSettings.failoverDelayMs;
      const phase = async (label: string, model: string) => {
        if (ctx.warmupS > 0) await ctx.measure('plain', c, ctx.warmupS, 'warmup', { model, delayMs });
        await resetFailing(ctx.sql);
        const before = await fakeCounts(ctx.fakeUrl);
        const { result, cpu, state: end } = await ctx.measure('plain', c, ctx.durationS, 'failover', { model, delayMs });
        const d = delta(before, await fakeCounts(ctx.fakeUrl));
        const unwrittenRows = end?.unwrittenRows ?? null;
        rows.push({
          phase: 'failover',
          label,
          connections: c,
          result,
          cpu,
          unwrittenRows,
          byBase: d.byBase,
          failed: d.failed,
          ...(label === 'direct' ? { switchMs } : {}),
        });
        ctx.log(`failover ${label.padEnd(6)} plain c=${c} ${line(result, cpu)}  upstream paths ${JSON.stringify(d.byBase)}, 503s ${d.failed}`);
      };
      await phase('direct', DIRECT_MODEL);
      // The failing provider's health is reset throughout the routed phases (warm-up included), so no
      // request finds it cooling down.
      let resetting = true;
      const resets = (async () => {
        while (resetting) {
          await resetFailing(ctx.sql).catch((e) => ctx.log(`failover: could not reset the failing provider's health: ${String(e)}`));
          await Bun.sleep(HEALTH_RESET_MS);
        }
      })();
      try {
        await phase('routed', FAILOVER_MODEL);
      } finally {
        resetting = false;
        await resets;
      }
      // The failed attempt's own time: the same request straight to the failing provider, as a client sees it.
      const failUrl = `${ctx.fakeUrl}/fail/v1/chat/completions`;
      const spec = (seconds: number, tag: string) => ({
        url: failUrl,
        body: body(FAILOVER_MODEL),
        headers: { 'Content-Type': 'application/json' },
        connections: c,
        durationSeconds: seconds,
        workDir: ctx.workDir,
        tag: `fail-${c}-${tag}`,
        slowMs: 50,
        delayMs,
      });
      if (ctx.warmupS > 0) await ctx.generator.run(spec(ctx.warmupS, 'warmup'), ctx.track);
      const before = await fakeCounts(ctx.fakeUrl);
      const result = await ctx.generator.run(spec(ctx.durationS, 'measure'), ctx.track);
      const d = delta(before, await fakeCounts(ctx.fakeUrl));
      rows.push({ phase: 'failover', label: 'failed attempt', connections: c, result, cpu: null, unwrittenRows: null, byBase: d.byBase, failed: d.failed });
      ctx.log(`failover failed attempt (straight to the fake's 503) c=${c} p50 ${ms(result.p50Ms)} p99 ${ms(result.p99Ms)} ms, ${d.failed} 503s`);
    }
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    ctx.log(`routing: ${error}`);
  } finally {
    // The rest of the run (slow streams) goes to the default provider as before.
    try {
      await switchTo(ctx, 'none');
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      error = error ? `${error}; ${message}` : message;
      ctx.log(`routing: could not switch routing off: ${message}`);
    }
  }
  return { rows, error };
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');

function line(result: LoadResult, cpu: CpuPerRequest): string {
  return (
    `${result.rps.toFixed(0).padStart(6)} req/s  p50 ${ms(result.p50Ms)}  p99 ${ms(result.p99Ms)}  max ${result.maxMs.toFixed(1)} ms  ` +
    `cpu/req µs: conduit ${cpu.proxyUs.toFixed(0)} pg ${cpu.postgresUs.toFixed(0)}; other ${cpu.otherCores.toFixed(2)} cores` +
    (result.non2xx || result.socketErrors ? `  non-2xx ${result.non2xx} socket errors ${result.socketErrors}` : '')
  );
}

function pooled(rows: RoutingRow[]): { rps: number; proxyUs: number } {
  const requests = rows.reduce((n, r) => n + r.result.requests, 0);
  const seconds = rows.reduce((n, r) => n + r.result.requests / Math.max(1e-9, r.result.rps), 0);
  const proxyUs = rows.reduce((n, r) => n + (r.cpu?.proxyUs ?? 0) * r.result.requests, 0) / Math.max(1, requests);
  return { rps: requests / Math.max(1e-9, seconds), proxyUs };
}

const sumOf = (byBase: Record<string, number>, pick: (base: string) => boolean) =>
  Object.entries(byBase).reduce((n, [base, count]) => n + (pick(base) ? count : 0), 0);

export function routingVerdicts(outcome: RoutingOutcome, latencyResolutionMs: number): RoutingVerdict[] {
  const out: RoutingVerdict[] = [];
  const { routeCount, providerCount } = routingSettings;
  if (routingSettings.phases.has('routes')) {
    const without = outcome.rows.filter((r) => r.phase === 'routes' && r.label === 'none');
    const withIt = outcome.rows.filter((r) => r.phase === 'routes' && r.label === 'routes');
    const c = without[0]?.connections ?? withIt[0]?.connections ?? 64;
    const name = `routing cost plain c=${c}: req/s with ${routeCount} routes and ${providerCount} providers ≥ ${(1 - ROUTING_TARGETS.routesCost).toFixed(2)}× without routes (cost ≤ ${(ROUTING_TARGETS.routesCost * 100).toFixed(0)} %)`;
    if (without.length === 0 || withIt.length === 0) {
      out.push({ name, ok: null, detail: `not measured: ${outcome.error ?? 'no phases ran'}` });
    } else {
      const a = pooled(withIt);
      const b = pooled(without);
      const cost = 1 - a.rps / b.rps;
      out.push({
        name,
        ok: cost <= ROUTING_TARGETS.routesCost,
        detail:
          `${a.rps.toFixed(0)} vs ${b.rps.toFixed(0)} req/s over ${withIt.length} + ${without.length} alternating phases: cost ${(cost * 100).toFixed(1)} %; ` +
          `Conduit CPU ${a.proxyUs.toFixed(1)} vs ${b.proxyUs.toFixed(1)} µs/req (${(((a.proxyUs - b.proxyUs) / a.proxyUs) * 100).toFixed(1)} % of it)`,
      });
    }
  }
  if (routingSettings.phases.has('failover')) {
    const find = (label: string) => outcome.rows.find((r) => r.phase === 'failover' && r.label === label)?.result;
    const direct = find('direct');
    const routed = find('routed');
    const failed = find('failed attempt');
    const c = routingSettings.failoverConnections;
    const name = `failover c=${c}: adds ≤ ${ROUTING_TARGETS.failoverAddedMs} ms (p50) beyond the failed attempt's own time`;
    if (!direct || !routed || !failed) {
      out.push({ name, ok: null, detail: `not measured: ${outcome.error ?? 'no phases ran'}` });
    } else {
      const added50 = routed.p50Ms - direct.p50Ms - failed.p50Ms;
      const added99 = routed.p99Ms - direct.p99Ms - failed.p99Ms;
      const judgeable = latencyResolutionMs <= 0.1;
      out.push({
        name,
        ok: judgeable ? added50 <= ROUTING_TARGETS.failoverAddedMs : null,
        detail:
          `p50: routed ${ms(routed.p50Ms)} − direct ${ms(direct.p50Ms)} − failed attempt ${ms(failed.p50Ms)} = ${added50 >= 0 ? '+' : ''}${ms(added50)} ms; ` +
          `p99 (reported, not judged): ${ms(routed.p99Ms)} − ${ms(direct.p99Ms)} − ${ms(failed.p99Ms)} = ${added99 >= 0 ? '+' : ''}${ms(added99)} ms` +
          (judgeable ? '' : ` (not judged: ${latencyResolutionMs} ms latency resolution; install wrk)`),
      });
    }
  }
  return out;
}

/** That each phase did what it says: every routed request failed over, no "without" request was routed. */
export function routingChecks(outcome: RoutingOutcome): RoutingVerdict[] {
  const out: RoutingVerdict[] = [];
  if (outcome.error) out.push({ name: 'routing phases ran to the end', ok: false, detail: outcome.error });
  for (const r of outcome.rows) {
    const n = r.result.requests;
    const routedTo = sumOf(r.byBase, (b) => b.startsWith('bench-p'));
    const toDefault = r.byBase['-'] ?? 0;
    // wrk stops with up to one request per connection still in flight: the fake may have seen those too.
    const near = (count: number) => count >= n && count - n <= r.connections;
    if (r.phase === 'routes') {
      out.push({
        name: `routing ${r.label} phase: every request went ${r.label === 'none' ? 'to the default provider' : 'through a route to a bench provider'}`,
        ok: r.label === 'none' ? near(toDefault) && routedTo === 0 && r.failed === 0 : near(routedTo) && toDefault === 0 && r.failed === 0,
        detail: `${n} answered; upstream paths ${JSON.stringify(r.byBase)}; ${r.result.non2xx} non-2xx`,
      });
    } else if (r.label === 'direct') {
      out.push({
        name: 'failover direct phase: every request went to the healthy provider, none to the failing one',
        ok: near(r.byBase[HEALTHY_ID] ?? 0) && r.failed === 0 && r.result.non2xx === 0,
        detail: `${n} answered; upstream paths ${JSON.stringify(r.byBase)}; ${r.failed} 503s; ${r.result.non2xx} non-2xx`,
      });
    } else if (r.label === 'routed') {
      out.push({
        name: `failover routed phase: every request failed over (a 503 from the failing provider, then the healthy one; PROVIDER_FAILURE_THRESHOLD=${FAILOVER_THRESHOLD}, health reset every ${HEALTH_RESET_MS} ms)`,
        ok: near(r.failed) && near(r.byBase[HEALTHY_ID] ?? 0) && r.result.non2xx === 0,
        detail: `${n} answered 200; ${r.failed} 503s from the failing provider; upstream paths ${JSON.stringify(r.byBase)}; ${r.result.non2xx} non-2xx`,
      });
    }
  }
  return out;
}

/** The report's section: what the phases are, then every routing phase in the order it ran (nothing when none ran). */
export function routingSection(outcome: RoutingOutcome): string[] {
  if (outcome.rows.length === 0) return [];
  const c = outcome.rows.find((r) => r.phase === 'routes')?.connections;
  return [
    'Routing (bench/routing.ts): one Conduit switched between states through the database (rows + NOTIFY, then a probe request until the fake sees it arrive on the new path); ' +
      (c ? `"routes" phases alternate without / with the routes at plain c=${c}; ` : '') +
      '"failover": direct = a route to the healthy provider alone, routed = the failing provider (503 at once) first, then the healthy one, ' +
      'failed attempt = the same request straight to the failing provider (wrk, no Conduit):',
    '',
    routingTable(outcome),
    '',
  ];
}

function routingTable(outcome: RoutingOutcome): string {
  const lines = [
    '| phase | state | conns | requests | req/s | p50 ms | p99 ms | max ms | Conduit µs/req | PostgreSQL µs/req | other work (cores) | usage rows not yet written at end | upstream requests by path | 503s | switch took ms |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|',
  ];
  for (const r of outcome.rows) {
    lines.push(
      `| ${r.phase} | ${r.label} | ${r.connections} | ${r.result.requests} | ${r.result.rps.toFixed(0)} | ${ms(r.result.p50Ms)} | ${ms(r.result.p99Ms)} | ${r.result.maxMs.toFixed(1)} | ` +
        `${r.cpu ? r.cpu.proxyUs.toFixed(1) : '—'} | ${r.cpu ? r.cpu.postgresUs.toFixed(1) : '—'} | ${r.cpu ? r.cpu.otherCores.toFixed(2) : '—'} | ${r.unwrittenRows ?? '—'} | ` +
        `${
          Object.entries(r.byBase)
            .map(([b, n]) => `${b === '-' ? 'default' : b} ${n}`)
            .join(', ') || '—'
        } | ${r.failed} | ${r.switchMs === undefined ? '' : r.switchMs.toFixed(0)} |`,
    );
  }
  return lines.join('\n');
}

export function routingDescription(): string {
  const parts: string[] = [];
  if (routingSettings.phases.has('routes')) {
    parts.push(
      `routes: ${routingSettings.rounds} rounds of plain phases without / with ${routingSettings.routeCount} routes over ${routingSettings.providerCount} providers`,
    );
  }
  if (routingSettings.phases.has('failover')) {
    parts.push(
      `failover: c=${routingSettings.failoverConnections}, ${routingSettings.failoverDelayMs} ms between an answer and the next request, ` +
        `503 then healthy vs healthy alone (PROVIDER_FAILURE_THRESHOLD=${FAILOVER_THRESHOLD})`,
    );
  }
  return parts.join('; ') || 'nothing (BENCH_ROUTING empty)';
}
