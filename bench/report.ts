// The bench's report: the tables of its phases, the verdicts on the targets, the checks, and the text and
// JSON they are printed as. Pure formatting and judging: nothing here starts or measures anything.
import type { Books, KeyBooks, SeededPrices } from './database';
import type { LoadResult } from './loadgen';
import { routingDescription, routingSection, type RoutingOutcome } from './routing';
import {
  OTHER_WORK_WARN_CORES,
  settings,
  SLOW_USAGE,
  TARGETS,
  type CompareRow,
  type ConduitState,
  type CpuShare,
  type LogCounts,
  type Mode,
  type Row,
  type Server,
  type SlowRow,
  type Target,
} from './settings';

export const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
export const ms1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
export const pct = (v: number) => `${(v * 100).toFixed(0)} %`;
export const mib = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

export function table(rows: Row[]): string {
  const find = (mode: Mode, c: number, t: Target) => rows.find((r) => r.mode === mode && r.connections === c && r.target === t)?.result;
  const lines = [
    '| mode | conns | floor req/s | floor p50 ms | floor p99 ms | floor p99.9 ms | floor max ms | conduit req/s | conduit p50 ms | conduit p99 ms | conduit p99.9 ms | conduit max ms | req/s ratio | added p50 ms | added p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const keys = [...new Set(rows.map((r) => `${r.mode}:${r.connections}`))];
  for (const k of keys) {
    const [mode, cText] = k.split(':') as [Mode, string];
    const c = Number(cText);
    const f = find(mode, c, 'floor');
    const d = find(mode, c, 'conduit');
    const cell = (r: LoadResult | undefined, pick: (r: LoadResult) => string) => (r ? pick(r) : '—');
    const figures = (r: LoadResult | undefined) =>
      `${cell(r, (x) => x.rps.toFixed(0))} | ${cell(r, (x) => ms(x.p50Ms))} | ${cell(r, (x) => ms(x.p99Ms))} | ` +
      `${cell(r, (x) => ms(x.p999Ms))} | ${cell(r, (x) => ms(x.maxMs))}`;
    lines.push(
      `| ${mode} | ${c} | ${figures(f)} | ${figures(d)} | ` +
        `${f && d ? pct(d.rps / f.rps) : '—'} | ${f && d ? ms(d.p50Ms - f.p50Ms) : '—'} | ${f && d ? ms(d.p99Ms - f.p99Ms) : '—'} |`,
    );
  }
  return lines.join('\n');
}

export function cpuTable(rows: Row[]): string {
  const lines = [
    '| mode | conns | target | proxy µs/req | fake upstream µs/req | PostgreSQL µs/req | generator µs/req | machine busy (cores) | other work (cores) | Conduit peak RSS in phase | Conduit RSS at end | usage rows not yet written at end |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const c = r.cpu;
    lines.push(
      `| ${r.mode} | ${r.connections} | ${r.target} | ${c.proxyUs.toFixed(0)} | ${c.upstreamUs.toFixed(0)} | ${c.postgresUs.toFixed(0)} | ` +
        `${c.generatorUs.toFixed(0)} | ${c.busyCores.toFixed(2)} | ${c.otherCores.toFixed(2)}${c.otherCores > OTHER_WORK_WARN_CORES ? ' ⚠' : ''} | ` +
        `${r.conduit ? mib(r.conduit.peakRssBytes) : ''} | ${r.conduit ? mib(r.conduit.rssBytes) : ''} | ${r.conduit ? r.conduit.unwrittenRows : ''} |`,
    );
  }
  return lines.join('\n');
}

/** The slow end of every measured phase: p99.9, max, how many requests took longer than settings.slowMs, database trouble. */
export function tailTable(rows: Row[]): string {
  const t = settings.slowMs;
  const lines = [
    `| mode | conns | target | requests | p99.9 ms | max ms | requests > ${t} ms (wrk) | Conduit usage rows > ${t} ms | Conduit log: deadlock / transient DB error / all warn+error lines |`,
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const slow = r.result.slowRequests;
    const d = r.conduit;
    lines.push(
      `| ${r.mode} | ${r.connections} | ${r.target} | ${r.result.requests} | ${ms(r.result.p999Ms)} | ${ms(r.result.maxMs)} | ` +
        `${slow === null ? 'n/a' : `${slow} (${((slow / Math.max(1, r.result.requests)) * 100).toFixed(3)} %)`} | ` +
        `${d ? (d.slowRows ?? 'n/a') : ''} | ${d ? `${d.log.deadlock} / ${d.log.transient} / ${d.log.warnOrError}` : ''} |`,
    );
  }
  return lines.join('\n');
}

/** The slow-stream phases: TTFT from the request's write to the first content event, completions, billing. */
export function slowTable(rows: SlowRow[]): string {
  const lines = [
    '| streams | target | ok | broken (connect / socket / status / no [DONE] / timeout) | TTFT p50 ms | TTFT p99 ms | TTFT max ms | connect p99 ms | stream p50 ms | stream p99 ms | all ended after s | open at the upstream at once | server CPU s | Conduit peak RSS in phase | Conduit usage rows: ok / all / exact tokens |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const x = r.summary;
    const why = x.reasons;
    lines.push(
      `| ${r.count} | ${r.target} | ${x.ok} | ${x.broken} (${why.connect} / ${why.socket} / ${why.status} / ${why.noDone} / ${why.timeout}) | ` +
        `${ms1(x.ttftMs.p50)} | ${ms1(x.ttftMs.p99)} | ${ms1(x.ttftMs.max)} | ${ms1(x.connectMs.p99)} | ${ms1(x.totalMs.p50)} | ${ms1(x.totalMs.p99)} | ` +
        `${(x.wallMs / 1000).toFixed(2)} | ${r.upstreamPeak} | ${r.proxyCpuS.toFixed(2)} | ${r.target === 'conduit' ? mib(r.peakRssBytes) : ''} | ` +
        `${r.rows ? `${r.rows.ok} / ${r.rows.all} / ${r.rows.exactTokens}` : ''} |`,
    );
  }
  return lines.join('\n');
}

/** BENCH_COMPARE: Conduit and its variant, phase by phase, in the order they ran. */
export function compareTable(rows: CompareRow[]): string {
  const lines = ['| mode | conns | target | req/s | p50 ms | p99 ms | max ms | proxy µs/req | other work (cores) |', '|---|---:|---|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    lines.push(
      `| ${r.mode} | ${r.connections} | ${r.target} | ${r.result.rps.toFixed(0)} | ${ms(r.result.p50Ms)} | ${ms(r.result.p99Ms)} | ${ms1(r.result.maxMs)} | ` +
        `${r.cpu.proxyUs.toFixed(1)} | ${r.cpu.otherCores.toFixed(2)}${r.cpu.otherCores > OTHER_WORK_WARN_CORES ? ' ⚠' : ''} |`,
    );
  }
  return lines.join('\n');
}

export function keyBooksLine(k: KeyBooks): string {
  const sum = k.budgetNano + k.claimedNano + k.spentNano;
  return (
    `limit ${k.limitNano} = budget ${k.budgetNano} + claimed ${k.claimedNano} (${k.claims} claim rows) + spent ${k.spentNano} → ` +
    `${k.limitNano === sum ? 'holds' : `OFF by ${(k.limitNano ?? 0n) - sum}`}`
  );
}

export interface Verdict {
  name: string;
  /** null: cannot be judged with this load generator. */
  ok: boolean | null;
  detail: string;
}

/** What the targets are judged on, besides the wrk phases. */
export interface VerdictInputs {
  rows: Row[];
  slowRows: SlowRow[];
  compareRows: CompareRow[];
  /** Why BENCH_COMPARE has no figures (variant not built or did not start), or null. */
  compareError: string | null;
  compareLabel: string | null;
  idleRss: number | null;
  /** VmHWM could be reset per phase; else peaks are since the process started. */
  peakResets: boolean;
  latencyResolutionMs: number;
  /** Whether every usage row is priced exactly (the check of that name). */
  allPricedExactly: boolean;
}

/** Mean req/s and CPU µs per request over phases of one kind. */
export function pooled(rows: { result: LoadResult; cpu: CpuShare }[]): { rps: number; proxyUs: number } {
  const requests = rows.reduce((n, r) => n + r.result.requests, 0);
  const seconds = rows.reduce((n, r) => n + r.result.requests / Math.max(1e-9, r.result.rps), 0);
  const proxyUs = rows.reduce((n, r) => n + r.cpu.proxyUs * r.result.requests, 0) / Math.max(1, requests);
  return { rps: requests / Math.max(1e-9, seconds), proxyUs };
}

export function verdicts(input: VerdictInputs): Verdict[] {
  const { rows, slowRows } = input;
  // Sub-millisecond added latency cannot be judged from whole-millisecond percentiles.
  const judgeable = input.latencyResolutionMs <= 0.1;
  const unjudged = judgeable ? '' : ` (not judged: ${input.latencyResolutionMs} ms latency resolution; install wrk)`;
  const out: Verdict[] = [];
  const findRow = (mode: Mode, c: number, t: Target) => rows.find((r) => r.mode === mode && r.connections === c && r.target === t);
  const find = (mode: Mode, c: number, t: Target) => findRow(mode, c, t)?.result;
  for (const mode of settings.modes) {
    for (const c of settings.high) {
      const f = find(mode, c, 'floor');
      const d = find(mode, c, 'conduit');
      if (!f || !d) continue;
      const ratio = d.rps / f.rps;
      out.push({
        name: `throughput ${mode} c=${c}: Conduit ≥ ${TARGETS.rpsRatio[mode]}× the floor's req/s`,
        ok: ratio >= TARGETS.rpsRatio[mode],
        detail: `${d.rps.toFixed(0)} / ${f.rps.toFixed(0)} = ${ratio.toFixed(2)}×`,
      });
    }
    for (const c of settings.low) {
      if (!TARGETS.latencyConnections.includes(c)) continue;
      const f = find(mode, c, 'floor');
      const d = find(mode, c, 'conduit');
      if (!f || !d) continue;
      const a50 = d.p50Ms - f.p50Ms;
      const a99 = d.p99Ms - f.p99Ms;
      out.push({
        name: `latency ${mode} c=${c}: added p50 ≤ ${TARGETS.addedP50Ms} ms`,
        ok: judgeable ? a50 <= TARGETS.addedP50Ms : null,
        detail: `${ms(d.p50Ms)} − ${ms(f.p50Ms)} = ${a50 >= 0 ? '+' : ''}${ms(a50)} ms${unjudged}`,
      });
      out.push({
        name: `latency ${mode} c=${c}: added p99 ≤ ${TARGETS.addedP99Ms} ms`,
        ok: judgeable ? a99 <= TARGETS.addedP99Ms : null,
        detail: `${ms(d.p99Ms)} − ${ms(f.p99Ms)} = ${a99 >= 0 ? '+' : ''}${ms(a99)} ms${unjudged}`,
      });
    }
    for (const c of settings.long) {
      const d = findRow(mode, c, 'conduit');
      if (!d) continue;
      const f = find(mode, c, 'floor');
      const longEnough = d.seconds >= TARGETS.tailRunS;
      const slow = d.result.slowRequests;
      out.push({
        name: `tail ${mode} c=${c}: no request over ${TARGETS.tailMaxMs} ms in a ${TARGETS.tailRunS} s run (wrk's max)`,
        ok: longEnough ? d.result.maxMs <= TARGETS.tailMaxMs : null,
        detail:
          `${longEnough ? '' : `not judged: the phase lasted ${d.seconds} s (BENCH_LONG_DURATION); `}` +
          `max ${ms1(d.result.maxMs)} ms, p99.9 ${ms(d.result.p999Ms)} ms, ${slow ?? 'n/a'} of ${d.result.requests} requests > ${settings.slowMs} ms, ` +
          `Conduit usage rows > ${settings.slowMs} ms: ${d.conduit?.slowRows ?? 'n/a'}` +
          (f ? `; floor: max ${ms1(f.maxMs)} ms, p99.9 ${ms(f.p999Ms)} ms` : ''),
      });
    }
  }
  if (settings.targets.includes('conduit') && settings.modes.includes('plain') && settings.high.length > 0 && !settings.onlyCompare) {
    const c = settings.high[0]!;
    const d = findRow('plain', c, 'conduit');
    const peak = d?.conduit?.peakRssBytes ?? null;
    out.push({
      name: `Conduit peak RSS ≤ ${TARGETS.peakRssMiB} MiB during plain c=${c}`,
      ok: peak === null ? null : peak <= TARGETS.peakRssMiB * 1024 * 1024,
      detail:
        `${mib(peak)} (VmHWM ${input.peakResets ? 'reset right before the measured phase, read right after' : 'since start: /proc/<pid>/clear_refs could not reset it'}); ` +
        `idle RSS before the load ${mib(input.idleRss)}`,
    });
  }
  for (const count of settings.slowStreams) {
    const f = slowRows.find((r) => r.target === 'floor' && r.count === count);
    const d = slowRows.find((r) => r.target === 'conduit' && r.count === count);
    if (!f || !d) continue;
    const added = d.summary.ttftMs.p99 - f.summary.ttftMs.p99;
    out.push({
      name: `${count} concurrent slow streams: Conduit's TTFT p99 ≤ ${TARGETS.ttftAddedP99Ms} ms over the floor's`,
      ok: d.summary.broken === 0 && f.summary.broken === 0 && Number.isFinite(added) ? added <= TARGETS.ttftAddedP99Ms : false,
      detail:
        `${ms1(d.summary.ttftMs.p99)} − ${ms1(f.summary.ttftMs.p99)} = ${added >= 0 ? '+' : ''}${ms1(added)} ms ` +
        `(p50 ${ms1(d.summary.ttftMs.p50)} vs ${ms1(f.summary.ttftMs.p50)} ms; broken ${d.summary.broken} / ${f.summary.broken}; ` +
        `at the upstream at once ${d.upstreamPeak} / ${f.upstreamPeak})`,
    });
  }
  if (settings.slowStreamsMax !== null) {
    const d = slowRows.find((r) => r.target === 'conduit' && r.count === settings.slowStreamsMax && r.model.endsWith('-max'));
    if (d) {
      const rows = d.rows;
      const billed = rows !== undefined && rows.ok === d.summary.ok && rows.all === d.summary.count && rows.exactTokens === rows.ok;
      out.push({
        name: `${d.count} concurrent slow streams to Conduit: none broken, every one billed exactly`,
        ok: d.summary.broken === 0 && billed && input.allPricedExactly,
        detail:
          `${d.summary.ok} of ${d.count} ended with [DONE], ${d.summary.broken} broken; ${d.upstreamPeak} open at the upstream at once; ` +
          `usage rows for ${d.model}: ${rows ? `${rows.ok} ok of ${rows.all}, ${rows.exactTokens} with the upstream's ${SLOW_USAGE.prompt} + ${SLOW_USAGE.completion} tokens` : 'n/a'}; ` +
          `every row priced exactly: ${input.allPricedExactly ? 'yes' : 'NO'}; TTFT p50 ${ms1(d.summary.ttftMs.p50)} p99 ${ms1(d.summary.ttftMs.p99)} max ${ms1(d.summary.ttftMs.max)} ms`,
      });
    }
  }
  if (input.compareLabel !== null) {
    for (const mode of settings.compareModes) {
      const c = settings.high[0] ?? 64;
      const withIt = input.compareRows.filter((r) => r.mode === mode && r.target === 'conduit');
      const without = input.compareRows.filter((r) => r.mode === mode && r.target === 'variant');
      const name = `${input.compareLabel} ${mode} c=${c}: Conduit's req/s ≥ ${(1 - TARGETS.metricsCost).toFixed(2)}× the variant's (cost ≤ ${pct(TARGETS.metricsCost)})`;
      if (withIt.length === 0 || without.length === 0) {
        out.push({ name, ok: null, detail: `not measured: ${input.compareError ?? 'no phases ran'}` });
        continue;
      }
      const a = pooled(withIt);
      const b = pooled(without);
      const cost = 1 - a.rps / b.rps;
      if (settings.onlyCompare) {
        // `npm run bench:compare`: a measurement of one against the other, not a target.
        out.push({
          name: `${input.compareLabel} ${mode} c=${c} (measured, not judged)`,
          ok: null,
          detail:
            `Conduit ${a.rps.toFixed(0)} vs the variant's ${b.rps.toFixed(0)} req/s over ${withIt.length} + ${without.length} alternating phases ` +
            `(${((a.rps / b.rps - 1) * 100).toFixed(1)} %); Conduit CPU ${a.proxyUs.toFixed(1)} vs ${b.proxyUs.toFixed(1)} µs/req (${a.proxyUs - b.proxyUs >= 0 ? '+' : ''}${(a.proxyUs - b.proxyUs).toFixed(1)})`,
        });
        continue;
      }
      out.push({
        name,
        ok: cost <= TARGETS.metricsCost,
        detail:
          `${a.rps.toFixed(0)} vs ${b.rps.toFixed(0)} req/s over ${withIt.length} + ${without.length} alternating phases: cost ${(cost * 100).toFixed(1)} %; ` +
          `Conduit CPU ${a.proxyUs.toFixed(1)} vs ${b.proxyUs.toFixed(1)} µs/req (${(((a.proxyUs - b.proxyUs) / a.proxyUs) * 100).toFixed(1)} % of it)`,
      });
    }
  }
  return out;
}

export function booksLine(b: Books): string {
  return (
    `Σ ledger ${b.ledgerNano} = balance ${b.balanceNano} + leases ${b.leasedNano} → ` +
    `${b.ledgerNano === b.balanceNano + b.leasedNano ? 'holds' : `OFF by ${b.ledgerNano - b.balanceNano - b.leasedNano}`}`
  );
}

/** One phase's line in the log as it ends. */
export const phaseLine = (target: Server, mode: Mode, connections: number, result: LoadResult, cpu: CpuShare, state?: ConduitState) =>
  `${target.padEnd(7)} ${mode.padEnd(6)} c=${String(connections).padEnd(3)} ${result.rps.toFixed(0).padStart(6)} req/s  ` +
  `p50 ${ms(result.p50Ms)}  p99 ${ms(result.p99Ms)}  p99.9 ${ms(result.p999Ms)}  max ${ms1(result.maxMs)} ms  ` +
  `>${settings.slowMs} ms ${result.slowRequests ?? 'n/a'}  ` +
  `cpu/req µs: proxy ${cpu.proxyUs.toFixed(0)} upstream ${cpu.upstreamUs.toFixed(0)} pg ${cpu.postgresUs.toFixed(0)} ` +
  `wrk ${cpu.generatorUs.toFixed(0)}; other ${cpu.otherCores.toFixed(2)} cores` +
  (state?.peakRssBytes ? `; peak RSS ${mib(state.peakRssBytes)}` : '') +
  (result.non2xx || result.socketErrors ? `  non-2xx ${result.non2xx} socket errors ${result.socketErrors}` : '') +
  (state && (state.log.deadlock || state.log.transient) ? `  log: ${state.log.deadlock} deadlock, ${state.log.transient} transient-error lines` : '');

/** Everything the printed report says besides its tables' rows. */
export interface ReportInput {
  started: number;
  version: string;
  info: { nproc: number; cpu: string; memoryGiB: number; kernel: string; bun: string };
  generatorName: string;
  limitsLine: string;
  routingOutcome: RoutingOutcome | null;
  compareSource: string | null;
  compareError: string | null;
  compareLabel: string | null;
  seeded: SeededPrices | null;
  rows: Row[];
  slowRows: SlowRow[];
  compareRows: CompareRow[];
  conduitPeakRss: number | null;
  idleRss: number | null;
  floorPeakRss: number | null;
  upstreamPeakRss: number | null;
  deadlocksBefore: { database: number; server: number };
  deadlocksAfter: { database: number; server: number };
  pgLogBefore: { all: number; database: number } | null;
  pgLogAfter: { all: number; database: number } | null;
  databaseName: string;
  conduitLogTotal: LogCounts;
  conduitLogs: string[];
  variantLogs: string[];
  targetVerdicts: Verdict[];
  usageChecks: Verdict[];
}

/** The wrk phases' tables: floor against Conduit, their slow end, and the CPU each used. */
function loadSections(rows: Row[]): string[] {
  return [
    table(rows),
    '',
    `The slow end of each measured phase (wrk's p99.9 includes its coordinated-omission samples, see README; "requests > ${settings.slowMs} ms" counts real completed requests only; ` +
      `Conduit usage rows: requests settled in the phase that took longer by Conduit's own clock, reservation included):`,
    '',
    tailTable(rows),
    '',
    'CPU per completed request in the measured phases (from /proc; "other work" is the rest of the machine: the bench, unattributed kernel time, anything foreign — ⚠ marks a phase where it exceeded ' +
      `${OTHER_WORK_WARN_CORES} cores, so the machine was shared and that phase's figures are suspect):`,
    '',
    cpuTable(rows),
    '',
  ];
}

/** The report printed on stdout at the end of a run. */
export function reportText(r: ReportInput): string {
  return [
    '',
    `Conduit benchmark — ${new Date().toISOString()} — Conduit ${r.version}`,
    `machine: ${r.info.nproc} CPUs (${r.info.cpu}), ${r.info.memoryGiB} GiB, Linux ${r.info.kernel}; bun ${r.info.bun}; ${r.generatorName}`,
    `phases: ${settings.warmupS} s warm-up + ${settings.durationS} s measured each` +
      (settings.long.length
        ? ` (${settings.longDurationS} s at ${settings.long.join(', ')} connection${settings.long.length > 1 || settings.long[0] !== 1 ? 's' : ''})`
        : '') +
      `; request: acme/chat, 2 messages, max_tokens 16; slow streams: ${[...settings.slowStreams.map((n) => `${n} (floor and Conduit)`), ...(settings.slowStreamsMax ? [`${settings.slowStreamsMax} (Conduit)`] : [])].join(', ') || 'none'}`,
    r.limitsLine,
    `routing (issue 29): ${r.routingOutcome ? routingDescription() : settings.onlyCompare ? 'not run (BENCH_ONLY_COMPARE=1)' : 'nothing (BENCH_ROUTING empty or no conduit target)'}`,
    `compared: ${r.compareSource ?? (settings.compare ? `${settings.compare}: not run (${r.compareError ?? 'no conduit target'})` : 'nothing (BENCH_COMPARE empty)')}`,
    `price table: ${r.seeded ? `${r.seeded.rows} rows in model_prices (acme/chat matches ${r.seeded.benchPattern} at TOKEN_PRICE)` : 'empty (every model at TOKEN_PRICE)'}; ` +
      `bench key: ${settings.keyLimit === null ? 'no spend limit' : `spend limit ${settings.keyLimit} a day (claims in key_leases)`}`,
    '',
    ...(r.rows.length ? loadSections(r.rows) : ['load, latency, tail and slow-stream phases: not run (BENCH_ONLY_COMPARE=1: the compare phases only)', '']),
    ...(r.slowRows.length
      ? [
          'Slow streams (bench/slow-streams.ts; the fake upstream sends the first content 50 ms after the request, then 49 more 20 ms apart, ~1.05 s in all): ' +
            'TTFT from writing the request to the first SSE event with content; connect: until the connection is open; stream: from the write to the end; ' +
            '"open at the upstream at once": the most concurrent slow streams the fake upstream held from that server:',
          '',
          slowTable(r.slowRows),
          '',
        ]
      : []),
    ...(r.compareRows.length
      ? [`${r.compareLabel}: Conduit and the variant (${r.compareSource}) in alternating phases, same load:`, '', compareTable(r.compareRows), '']
      : []),
    ...(r.routingOutcome ? routingSection(r.routingOutcome) : []),
    `peak RSS (VmHWM): conduit ${mib(r.conduitPeakRss)} over the whole run (${mib(r.idleRss)} idle before the load; per phase in the CPU and slow-stream tables), floor ${mib(r.floorPeakRss)}, fake upstream ${mib(r.upstreamPeakRss)}`,
    '',
    'database errors:',
    `  deadlocks (pg_stat_database): bench database ${r.deadlocksBefore.database} → ${r.deadlocksAfter.database}; whole server ${r.deadlocksBefore.server} → ${r.deadlocksAfter.server} (other databases: other people's work)`,
    `  PostgreSQL log (${settings.pgLogDir}): ` +
      (r.pgLogAfter
        ? `${r.pgLogAfter.database} 'deadlock detected' lines for ${r.databaseName}; ${r.pgLogBefore?.all ?? 'n/a'} → ${r.pgLogAfter.all} for all databases`
        : 'not readable'),
    `  Conduit log: ${r.conduitLogTotal.deadlock} lines naming a deadlock, ${r.conduitLogTotal.transient} naming a transient database error, ${r.conduitLogTotal.warnOrError} warn/error lines in all (${[...r.conduitLogs, ...r.variantLogs].join(', ')})`,
    '',
    'targets:',
    ...r.targetVerdicts.map((v) => `  ${v.ok === null ? 'n/a ' : v.ok ? 'MET ' : 'MISS'}  ${v.name}: ${v.detail}`),
    '',
    'checks:',
    ...r.usageChecks.map((v) => `  ${v.ok === null ? 'n/a ' : v.ok ? 'OK  ' : 'FAIL'}  ${v.name}: ${v.detail}`),
    '',
    `total time ${((Date.now() - r.started) / 1000).toFixed(0)} s`,
    '',
  ].join('\n');
}
