// BENCH_COMPARE: Conduit against a copy of itself with a part removed (nometrics: the metrics recording),
// same load at the first BENCH_HIGH count, alternating A B B A … so drift on a shared machine falls on both.
import { join, resolve } from 'node:path';
import { sanityCheck } from '../environment';
import { stopChild, type Child } from '../processes';
import { phaseLine, type Verdict } from '../report';
import { log, REPO, settings, type CompareRow } from '../settings';
import type { BenchContext } from './context';
import type { PhaseRunner } from './load';

export interface CompareOutcome {
  compareRows: CompareRow[];
  /** Why there are no figures (variant not built or did not start), or null. */
  compareError: string | null;
  compareLabel: string | null;
  compareSource: string | null;
  /** The variant's clean exit. */
  compareChecks: Verdict[];
  variantLogs: string[];
}

export async function runCompare(ctx: BenchContext, run: PhaseRunner): Promise<CompareOutcome> {
  const compareRows: CompareRow[] = [];
  let compareError: string | null = null;
  let compareLabel: string | null = null;
  let compareSource: string | null = null;
  const compareChecks: Verdict[] = [];
  let variantLogs: string[] = [];
  if (settings.compare && settings.targets.includes('conduit')) {
    const spec = settings.compare;
    compareLabel = settings.compareLabel ?? (spec === 'nometrics' ? 'metrics cost' : `cost of what ${spec} removes`);
    let variant: Child | null = null;
    try {
      let dir: string;
      if (spec.includes('/')) {
        dir = resolve(spec);
        compareSource = dir;
      } else {
        // Built from what Conduit runs from (working tree, BENCH_REF export or BENCH_CONDUIT_DIR), so only the change differs.
        const built = Bun.spawnSync(['bash', join(REPO, 'bench', 'variants.sh'), `bench-compare=${spec}`], {
          cwd: REPO,
          env: { ...ctx.baseEnv, VARIANT_SOURCE: ctx.conduitDir, VARIANT_DIR: join(ctx.tmp, `compare-${process.pid}`) },
          stdout: 'pipe',
          stderr: 'pipe',
        });
        if (built.exitCode !== 0) throw new Error(`bench/variants.sh ${spec}: ${built.stderr.toString().trim() || built.stdout.toString().trim()}`);
        dir = join(ctx.tmp, `compare-${process.pid}`, 'bench-compare');
        compareSource = `${spec} (bench/variants.sh) applied to a copy of ${ctx.conduitDir === REPO ? 'the working tree' : ctx.conduitDir}`;
      }
      const started = await ctx.startConduit(dir, 'variant');
      variant = started.child;
      variantLogs = started.logs;
      ctx.urls.variant = `${started.url}/v1/chat/completions`;
      ctx.pids.variant = variant.pid;
      log(`compare: variant pid ${variant.pid} on ${started.url} (${compareSource})`);
      const c = settings.high[0] ?? 64;
      for (const mode of settings.compareModes) {
        await sanityCheck(ctx.urls.variant, ctx.apiKey, mode);
        ctx.tally.conduit2xx++;
        // Conduit is warm from the load phases, unless they did not run (BENCH_ONLY_COMPARE): then it is warmed too.
        if (settings.warmupS > 0 && settings.onlyCompare) await run('conduit', mode, c, settings.warmupS, 'warmup');
        if (settings.warmupS > 0) await run('variant', mode, c, settings.warmupS, 'warmup');
        for (let round = 0; round < settings.compareRounds; round++) {
          const order: ('conduit' | 'variant')[] = round % 2 === 0 ? ['conduit', 'variant'] : ['variant', 'conduit'];
          for (const target of order) {
            const { result, cpu } = await run(target, mode, c, settings.durationS, 'compare');
            compareRows.push({ mode, connections: c, target, result, cpu });
            log(`compare ${phaseLine(target, mode, c, result, cpu)}`);
          }
        }
      }
    } catch (error) {
      compareError = error instanceof Error ? error.message : String(error);
      log(`compare: ${compareError}`);
    } finally {
      if (variant) {
        const code = await stopChild(variant, 10_000);
        compareChecks.push({
          name: 'the compared variant: clean exit after SIGTERM (its rows written, its leases returned)',
          ok: code === 0,
          detail: `exit ${code}`,
        });
      }
    }
  }
  return { compareRows, compareError, compareLabel, compareSource, compareChecks, variantLogs };
}
