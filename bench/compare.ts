// `npm run bench:compare -- <ref>`: the working tree against a committed <ref> on the /v1 path, as a guard
// against the next slip (issue 46, point 3). <ref> is exported with `git archive` (src, drizzle, package.json,
// tsconfig.json) into bench/.tmp/variants/ref-<short sha>, where the working tree's node_modules serve it too;
// then `npm run bench` runs with BENCH_ONLY_COMPARE=1 and BENCH_COMPARE=<that copy>: both on one fresh
// database with the working tree's schema (its Conduit starts first and migrates; the copy's older migrations
// are already applied), plain and stream at c=64 in alternating phases (A B, B A, …; BENCH_COMPARE_ROUNDS, 2),
// and no floor, latency, slow-stream or routing phases. The bench's own report is printed as it always is;
// then a short table: per mode, req/s and Conduit's CPU µs per request of both, and the difference.
//
// Exit 0 when it ran (a measurement, not a gate: read the difference), non-zero when it could not run (an
// unknown ref, a failed export, no figures) or when a check of the books failed (the bench's exit code).
// Every BENCH_* knob of `npm run bench` still applies (BENCH_DURATION, BENCH_WARMUP, BENCH_HIGH, BENCH_PG_URL…).
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pooled } from './report';
import { REPO, type CompareRow, type Mode } from './settings';

const usage = 'usage: npm run bench:compare -- <ref>   (a commit, branch or tag: the working tree is measured against it)';

function git(...args: string[]): { ok: boolean; out: string; err: string } {
  const r = Bun.spawnSync(['git', ...args], { cwd: REPO, stdout: 'pipe', stderr: 'pipe' });
  return { ok: r.exitCode === 0, out: r.stdout.toString().trim(), err: r.stderr.toString().trim() };
}

function fail(message: string): never {
  process.stderr.write(`bench:compare: ${message}\n`);
  process.exit(2);
}

const args = process.argv.slice(2).filter((a) => a !== '--');
if (args.length !== 1 || args[0]!.startsWith('-')) fail(usage);
const ref = args[0]!;
const resolved = git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
if (!resolved.ok || !resolved.out) fail(`${ref} is not a commit here (git rev-parse found nothing); ${usage}`);
const sha = resolved.out;
const short = git('rev-parse', '--short', sha).out;
const head = git('rev-parse', '--short', 'HEAD').out;
const dirty = git('status', '--porcelain', '--', 'src', 'drizzle', 'package.json', 'tsconfig.json').out;
const subject = git('log', '-1', '--format=%s', sha).out;

const variants = join(REPO, 'bench', '.tmp', 'variants');
const dir = join(variants, `ref-${short}`);
mkdirSync(variants, { recursive: true });
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir);
const removeCopy = () => rmSync(dir, { recursive: true, force: true });
const archive = Bun.spawnSync(['git', 'archive', '--format=tar', sha, 'src', 'drizzle', 'package.json', 'tsconfig.json'], {
  cwd: REPO,
  stdout: 'pipe',
  stderr: 'pipe',
});
if (archive.exitCode !== 0) {
  removeCopy();
  fail(`git archive ${short} failed: ${archive.stderr.toString().trim()}`);
}
const untar = Bun.spawnSync(['tar', '-x', '-C', dir], { stdin: archive.stdout, stderr: 'pipe' });
if (untar.exitCode !== 0 || !existsSync(join(dir, 'src', 'index.ts'))) {
  removeCopy();
  fail(`could not unpack ${short} into ${relative(REPO, dir)}: ${untar.stderr.toString().trim() || 'no src/index.ts in it'}`);
}

const label = `working tree (${head}${dirty ? ' + uncommitted changes' : ''}) vs ${ref} (${short})`;
process.stderr.write(
  `bench:compare: ${label}\n` +
    `  ${ref} = ${short} ${subject}\n` +
    `  exported to ${relative(REPO, dir)}\n` +
    (dirty
      ? `  note: the working tree has uncommitted changes, and they are what is measured:\n${dirty
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n')}\n`
      : ''),
);

const jsonOut = join(REPO, 'bench', '.tmp', `compare-result-${process.pid}.json`);
const env = process.env;
const child = Bun.spawn([process.execPath, join(REPO, 'bench', 'run.ts')], {
  cwd: REPO,
  env: {
    ...env,
    BENCH_ONLY_COMPARE: '1',
    BENCH_COMPARE: dir,
    BENCH_COMPARE_LABEL: `working tree vs ${ref} (${short})`,
    BENCH_COMPARE_MODES: env.BENCH_COMPARE_MODES ?? 'plain,stream',
    BENCH_COMPARE_ROUNDS: env.BENCH_COMPARE_ROUNDS ?? '2',
    BENCH_JSON: jsonOut,
    // The working tree is measured as it is: never an export or another directory.
    BENCH_REF: '',
    BENCH_CONDUIT_DIR: '',
  },
  stdin: 'ignore',
  stdout: 'inherit',
  stderr: 'inherit',
});
// Ctrl-C reaches the bench too (same process group); a SIGTERM is passed on. The bench cleans up its own
// processes and database either way; the exported copy is removed here.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (signal === 'SIGTERM') child.kill('SIGTERM');
  });
}
const code = await child.exited;
removeCopy();

let rows: CompareRow[] = [];
let modes: Mode[] = [];
try {
  const json = JSON.parse(readFileSync(jsonOut, 'utf8')) as { compareRows: CompareRow[]; settings: { compareModes: Mode[] } };
  rows = json.compareRows;
  modes = json.settings.compareModes;
} catch {
  // No report: the bench stopped before its end (its log above says why).
} finally {
  rmSync(jsonOut, { force: true });
}

const sign = (v: number, digits: number) => `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`;
const lines = [
  '',
  `bench:compare — ${label}; ${rows[0]?.connections ?? 64} connections, rounds of A B / B A: ${Math.max(0, ...modes.map((m) => rows.filter((r) => r.mode === m && r.target === 'conduit').length))}`,
  '',
  `| mode | working tree req/s | ${ref} req/s | req/s Δ | working tree µs/req | ${ref} µs/req | µs/req Δ |`,
  '|---|---:|---:|---:|---:|---:|---:|',
];
let missing = 0;
for (const mode of modes) {
  const a = rows.filter((r) => r.mode === mode && r.target === 'conduit');
  const b = rows.filter((r) => r.mode === mode && r.target === 'variant');
  if (a.length === 0 || b.length === 0) {
    missing++;
    lines.push(`| ${mode} | — | — | not measured | — | — | — |`);
    continue;
  }
  const x = pooled(a);
  const y = pooled(b);
  lines.push(
    `| ${mode} | ${x.rps.toFixed(0)} | ${y.rps.toFixed(0)} | ${sign((x.rps / y.rps - 1) * 100, 1)} % | ${x.proxyUs.toFixed(1)} | ${y.proxyUs.toFixed(1)} | ` +
      `${sign(x.proxyUs - y.proxyUs, 1)} (${sign(((x.proxyUs - y.proxyUs) / y.proxyUs) * 100, 1)} %) |`,
  );
}
lines.push(
  '',
  "req/s and CPU µs per request pooled over the alternating phases (Conduit's process only; the other processes are in the bench's compare table above).",
  'CPU µs/request is the steadier figure on a shared machine: judge a few % only on a quiet one (watch "other work").',
  '',
);
process.stdout.write(lines.join('\n'));

if (rows.length === 0 || missing === modes.length) {
  process.stderr.write(`bench:compare: no figures (the bench exited ${code}; its log above says why)\n`);
  process.exit(code === 0 ? 1 : code);
}
if (code !== 0) process.stderr.write(`bench:compare: the bench exited ${code}: a check failed (see "checks:" above)\n`);
process.exit(code);
