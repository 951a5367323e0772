// Slow streams: N streaming requests at once, each on its own connection, from their own process
// (bench/slow-streams.ts): time to first token against the floor's, none broken, each billed.
import { join } from 'node:path';
import { CLOCK_TICKS_PER_SECOND, treeCpuTicks, treePeakRssBytes, withOpenFiles } from '../processes';
import { mib, ms1 } from '../report';
import { log, REPO, settings, SLOW_MODEL, type SlowRow, type Target } from '../settings';
import type { SlowStreamSummary } from '../slow-streams';
import type { BenchContext } from './context';

export async function runSlowStreams(ctx: BenchContext): Promise<SlowRow[]> {
  const slowRows: SlowRow[] = [];
  const runSlow = async (target: Target, count: number, model: string) => {
    await fetch(`${ctx.fakeUrl}/stats/reset-peak`, { method: 'POST' });
    if (target === 'conduit') ctx.peaks.startPeak();
    const cpuBefore = treeCpuTicks(ctx.pids[target]);
    const timeoutMs = 60_000 + count * 10;
    const client = Bun.spawn(
      withOpenFiles(
        [
          ctx.bun,
          join(REPO, 'bench', 'slow-streams.ts'),
          '--url',
          ctx.urls[target],
          '--count',
          String(count),
          '--key',
          ctx.apiKey,
          '--model',
          model,
          '--timeout-ms',
          String(timeoutMs),
        ],
        count + 1024,
      ),
      { env: ctx.baseEnv, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
    );
    ctx.loadProcs.add(client);
    const [out, err, code] = await Promise.all([new Response(client.stdout).text(), new Response(client.stderr).text(), client.exited]);
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (code !== 0 || !line) throw new Error(`slow-streams client failed (exit ${code}): ${err.slice(0, 500) || out.slice(0, 500)}`);
    const summary = JSON.parse(line) as SlowStreamSummary;
    const upstream = (await (await fetch(`${ctx.fakeUrl}/stats`)).json()) as { slow: Record<'floor' | 'other', { peak: number }> };
    const row: SlowRow = {
      target,
      count,
      model,
      summary,
      upstreamPeak: upstream.slow[target === 'floor' ? 'floor' : 'other'].peak,
      proxyCpuS: (treeCpuTicks(ctx.pids[target]) - cpuBefore) / CLOCK_TICKS_PER_SECOND,
      peakRssBytes: target === 'conduit' ? treePeakRssBytes(ctx.conduit.pid) : null,
    };
    if (target === 'conduit') {
      ctx.tally.conduit2xx += summary.ok;
      // A broken stream may or may not have settled as 'ok': room for it in the row accounting.
      ctx.tally.conduitConnections += summary.broken;
    }
    slowRows.push(row);
    log(
      `${target.padEnd(7)} ${String(count).padStart(5)} slow streams: ok ${summary.ok} broken ${summary.broken}  ` +
        `TTFT p50 ${ms1(summary.ttftMs.p50)} p99 ${ms1(summary.ttftMs.p99)} max ${ms1(summary.ttftMs.max)} ms  ` +
        `connect p99 ${ms1(summary.connectMs.p99)} ms  all ended after ${(summary.wallMs / 1000).toFixed(2)} s  ` +
        `${row.upstreamPeak} at the upstream at once` +
        (row.peakRssBytes ? `; peak RSS ${mib(row.peakRssBytes)}` : '') +
        (summary.samples.length ? `  e.g. ${summary.samples.join('; ')}` : ''),
    );
    await Bun.sleep(500);
  };
  for (const count of settings.slowStreams) {
    for (const target of settings.targets) await runSlow(target, count, `${SLOW_MODEL}-${count}`);
  }
  if (settings.slowStreamsMax !== null && settings.targets.includes('conduit')) {
    await runSlow('conduit', settings.slowStreamsMax, `${SLOW_MODEL}-${settings.slowStreamsMax}-max`);
  }
  return slowRows;
}
