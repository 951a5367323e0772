// `npm test`: the whole suite in parallel shards, one `bun test` process each, so CI's two cores are both
// busy while a test waits on a server, a timer or the database. Every test file makes its own database and
// server (test/helpers/), so the files are independent and any split of them gives the same results.
//
// The files are split by their recorded durations (test/durations.json, rewritten by `--record`; a file not
// listed there is guessed from its size), the longest first onto the least loaded shard. Each shard's output
// is printed as it comes, a file's lines together once that file ends, so a failure reads as in a plain
// `bun test`; the totals come last in bun's own words (" N pass", " N fail"), which .ci/run reads. The exit
// code is non-zero when any test failed or any shard ended without its totals.
//
// The dashboard's build (typecheck and bundle, a minute on a clean clone) starts at once beside the shards,
// and each shard runs the files that need it (the browser tests, the assets' checks) last: they find it made
// instead of waiting for it at the start with the other shards' work piling up.
//
//   npm test                       all files, TEST_SHARDS processes (default: from the CPU count)
//   npm test -- test/accounts      given files or folders: one plain `bun test` over them
//   bun scripts/test.ts --record   all files, then rewrites test/durations.json from the times measured
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWebBuilt } from './build-web';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DURATIONS = join(ROOT, 'test', 'durations.json');
const TIMEOUT = ['--timeout', '30000'];
/** Seconds per byte of a file not yet in durations.json: the suite's ratio, roughly. */
const SECONDS_PER_BYTE = 1 / 4000;

const args = process.argv.slice(2);
const record = args.includes('--record');
const paths = args.filter((a) => a !== '--record');

if (paths.length > 0) {
  // A developer's run of some files: bun's own output, unchanged.
  const child = spawn(process.execPath, ['test', ...TIMEOUT, ...paths], { cwd: ROOT, stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  process.exit(await runAll());
}

function testFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFiles(path));
    else if (entry.name.endsWith('.test.ts')) found.push(relative(ROOT, path));
  }
  return found.sort();
}

function readDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

function shardCount(files: number): number {
  const fromEnv = Number(process.env.TEST_SHARDS);
  // One more than the cores: a shard is often waiting (a timer, a server, the database), not computing.
  const wanted = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : availableParallelism() + 1;
  return Math.max(1, Math.min(wanted, files));
}

/** The files that need the dashboard built: they call its build, or use the browser helpers (directly or through one). */
function needsBuild(file: string): boolean {
  return /\b(useBrowserApp|buildPage|ensureWebBuilt)\(|from '\.\.\/helpers\/(browser|booking-page)'/.test(readFileSync(join(ROOT, file), 'utf8'));
}

/** Longest first, each onto the shard with the least work so far. */
function split(files: string[], durations: Record<string, number>, count: number): string[][] {
  const cost = (f: string) => durations[f] ?? statSync(join(ROOT, f)).size * SECONDS_PER_BYTE;
  const shards = Array.from({ length: count }, () => ({ files: [] as string[], total: 0 }));
  for (const file of [...files].sort((a, b) => cost(b) - cost(a))) {
    const lightest = shards.reduce((a, b) => (b.total < a.total ? b : a));
    lightest.files.push(file);
    lightest.total += cost(file);
  }
  return shards.map((s) => s.files);
}

interface ShardResult {
  totals: Totals | undefined;
  code: number;
  failures: string[];
  /** Seconds per file, from the moment its header was printed to the next header or the end. */
  times: Record<string, number>;
}

interface Totals {
  pass: number;
  fail: number;
  skip: number;
  todo: number;
  expects: number;
  tests: number;
  files: number;
}

function runShard(index: number, files: string[]): Promise<ShardResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['test', ...TIMEOUT, ...files], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const tag = `[${index + 1}] `;
    const lines: string[] = [];
    const failures: string[] = [];
    const times: Record<string, number> = {};
    const counts: Partial<Record<keyof Totals, number>> = {};
    let pending = '';
    let block: string[] = [];
    let current: { file: string; started: number } | undefined;
    const fileSet = new Set(files);

    const flush = () => {
      if (block.length > 0) process.stdout.write(`${block.map((l) => tag + l).join('\n')}\n`);
      block = [];
    };
    const endFile = () => {
      if (current) times[current.file] = Math.round((performance.now() - current.started) / 10) / 100;
      current = undefined;
    };
    const onLine = (line: string) => {
      lines.push(line);
      const header = /^(\S+\.test\.ts):$/.exec(line);
      if (header && fileSet.has(header[1]!)) {
        flush();
        endFile();
        current = { file: header[1]!, started: performance.now() };
      }
      // bun repeats the failures after the last file: they are counted where they happened.
      if (/^\d+ tests? failed:$/.test(line.trim())) endFile();
      if (/^\(fail\) /.test(line) && current) failures.push(`${current.file}: ${line}`);
      const total = /^ *(\d+) (pass|fail|skip|todo)$/.exec(line);
      if (total) counts[total[2] as 'pass'] = Number(total[1]);
      const expects = /^ *(\d+) expect\(\) calls$/.exec(line);
      if (expects) counts.expects = Number(expects[1]);
      const ran = /^Ran (\d+) tests? across (\d+) files?\./.exec(line);
      if (ran) {
        counts.tests = Number(ran[1]);
        counts.files = Number(ran[2]);
        endFile();
      }
      block.push(line);
    };
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) onLine(part);
    };
    // bun writes results to stderr and the tests' own console output to stdout: both are the file's.
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code, signal) => {
      if (pending) onLine(pending);
      endFile();
      flush();
      const complete = counts.pass !== undefined && counts.fail !== undefined && counts.tests !== undefined;
      resolve({
        totals: complete
          ? {
              pass: counts.pass ?? 0,
              fail: counts.fail ?? 0,
              skip: counts.skip ?? 0,
              todo: counts.todo ?? 0,
              expects: counts.expects ?? 0,
              tests: counts.tests ?? 0,
              files: counts.files ?? 0,
            }
          : undefined,
        code: code ?? (signal ? 1 : 0),
        failures,
        times,
      });
    });
  });
}

/**
 * A shard's files in two `bun test` runs, those needing the build second: bun orders the files it is
 * given its own way, so one run could not promise that.
 */
async function runShardInTurn(index: number, files: string[]): Promise<ShardResult> {
  const groups = [files.filter((f) => !needsBuild(f)), files.filter(needsBuild)].filter((g) => g.length > 0);
  const results: ShardResult[] = [];
  for (const group of groups) results.push(await runShard(index, group));
  const totals = results.every((r) => r.totals)
    ? results.reduce<Totals>(
        (sum, r) => {
          for (const key of Object.keys(sum) as (keyof Totals)[]) sum[key] += r.totals![key];
          return sum;
        },
        { pass: 0, fail: 0, skip: 0, todo: 0, expects: 0, tests: 0, files: 0 },
      )
    : undefined;
  return {
    totals,
    code: results.find((r) => r.code !== 0)?.code ?? 0,
    failures: results.flatMap((r) => r.failures),
    times: Object.assign({}, ...results.map((r) => r.times)),
  };
}

async function runAll(): Promise<number> {
  const files = testFiles(join(ROOT, 'test'));
  const durations = readDurations();
  const shards = split(files, durations, shardCount(files.length)).filter((s) => s.length > 0);
  const started = performance.now();
  process.stdout.write(`${files.length} test files in ${shards.length} parallel shards\n`);
  const build = ensureWebBuilt((line) => process.stdout.write(`[web] ${line}\n`), { types: true }).catch((error: unknown) => {
    // The files that need the build try it again themselves, and fail with its message.
    process.stdout.write(`[web] ${error instanceof Error ? error.message : String(error)}\n`);
  });
  const results = await Promise.all(shards.map((s, i) => runShardInTurn(i, s)));
  await build;
  const seconds = (performance.now() - started) / 1000;

  const sum: Totals = { pass: 0, fail: 0, skip: 0, todo: 0, expects: 0, tests: 0, files: 0 };
  const problems: string[] = [];
  results.forEach((r, i) => {
    if (!r.totals) problems.push(`shard ${i + 1} ended (exit code ${r.code}) without its totals: see its last lines above`);
    else {
      for (const key of Object.keys(sum) as (keyof Totals)[]) sum[key] += r.totals[key];
      if (r.code !== 0 && r.totals.fail === 0) problems.push(`shard ${i + 1} exited with code ${r.code}`);
    }
  });

  if (record) {
    const times = Object.assign({}, ...results.map((r) => r.times)) as Record<string, number>;
    const sorted = Object.fromEntries(Object.entries(times).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(DURATIONS, `${JSON.stringify(sorted, null, 2)}\n`);
    process.stdout.write(`durations of ${Object.keys(sorted).length} files written to ${relative(ROOT, DURATIONS)}\n`);
  }

  const failures = results.flatMap((r) => r.failures);
  process.stdout.write('\n');
  if (failures.length > 0) process.stdout.write(`${failures.length} failed:\n${failures.join('\n')}\n\n`);
  for (const problem of problems) process.stdout.write(`${problem}\n`);
  process.stdout.write(` ${sum.pass} pass\n`);
  if (sum.skip > 0) process.stdout.write(` ${sum.skip} skip\n`);
  if (sum.todo > 0) process.stdout.write(` ${sum.todo} todo\n`);
  process.stdout.write(` ${sum.fail} fail\n`);
  process.stdout.write(` ${sum.expects} expect() calls\n`);
  process.stdout.write(`Ran ${sum.tests} tests across ${sum.files} files. [${seconds.toFixed(2)}s]\n`);
  return sum.fail > 0 || problems.length > 0 ? 1 : 0;
}
