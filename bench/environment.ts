// What the bench reads from around it: the machine, the Conduit source it runs, the fake upstream's counters,
// Conduit's and PostgreSQL's logs, and a few requests that check a server answers as a client expects.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import type { SeededPrices } from './database';
import { REPO, requestBody, settings, type LogCounts, type Mode } from './settings';

export function git(...args: string[]): string {
  const r = Bun.spawnSync(['git', ...args], { cwd: REPO, stdout: 'pipe', stderr: 'ignore' });
  return r.stdout.toString().trim();
}

export function machine() {
  return {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    kernel: release(),
    bun: Bun.version,
  };
}

/**
 * Where Conduit runs from: the working tree (default), a committed ref exported with `git archive`
 * (BENCH_REF), or a directory given (BENCH_CONDUIT_DIR). Exports live under bench/.tmp, inside the
 * repository, so they resolve the repository's node_modules.
 */
export function conduitSource(): { dir: string; commit: string; version: string } {
  if (settings.conduitDir) {
    const dir = resolve(settings.conduitDir);
    return { dir, commit: 'n/a', version: `from ${dir}` };
  }
  if (settings.ref) {
    const commit = git('rev-parse', '--short', settings.ref);
    if (!commit) throw new Error(`BENCH_REF=${settings.ref} is not a commit`);
    const dir = join(REPO, 'bench', '.tmp', `ref-${commit}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const archive = Bun.spawnSync(['git', 'archive', '--format=tar', commit, 'src', 'drizzle', 'package.json', 'tsconfig.json'], {
      cwd: REPO,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    if (archive.exitCode !== 0) throw new Error(`git archive failed: ${archive.stderr.toString()}`);
    const untar = Bun.spawnSync(['tar', '-x', '-C', dir], { stdin: archive.stdout, stderr: 'pipe' });
    if (untar.exitCode !== 0) throw new Error(`tar failed: ${untar.stderr.toString()}`);
    return { dir, commit, version: `commit ${commit} (exported clean)` };
  }
  const commit = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--', 'src', 'drizzle') !== '';
  return { dir: REPO, commit, version: `commit ${commit}${dirty ? ' + uncommitted changes in src/ (working tree)' : ' (working tree, clean)'}` };
}

export async function fakeStats(url: string): Promise<{ floor: number; other: number }> {
  return (await (await fetch(`${url}/stats`)).json()) as { floor: number; other: number };
}

export async function postJson(url: string, body: unknown, token?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as any;
}

/** One request of each mode, checked by eye of a client: a JSON answer, or a stream ending in [DONE]. */
export async function sanityCheck(url: string, key: string, mode: Mode): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: requestBody(mode),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`sanity ${mode} ${url}: ${res.status} ${text.slice(0, 300)}`);
  if (mode === 'plain' && !text.includes('"choices"')) throw new Error(`sanity plain ${url}: ${text.slice(0, 300)}`);
  if (mode === 'stream' && !text.trimEnd().endsWith('data: [DONE]')) throw new Error(`sanity stream ${url}: ${text.slice(-300)}`);
}

/** Lines of Conduit's logs (JSON lines on stdout, anything on stderr) from the given byte offsets on. */
export function scanLogs(files: string[], from: number[]): { counts: LogCounts; sizes: number[] } {
  const counts: LogCounts = { deadlock: 0, transient: 0, warnOrError: 0 };
  const sizes: number[] = [];
  files.forEach((file, i) => {
    let text = '';
    let size = 0;
    try {
      const bytes = readFileSync(file);
      size = bytes.length;
      text = bytes.subarray(Math.min(from[i] ?? 0, size)).toString('utf8');
    } catch {
      // Not written yet.
    }
    sizes.push(size);
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      if (/deadlock|40P01/i.test(line)) counts.deadlock++;
      if (/transient database error/i.test(line)) counts.transient++;
      if (!line.startsWith('{') || /"level":"(warn|error)"/.test(line)) counts.warnOrError++;
    }
  });
  return { counts, sizes };
}

/**
 * `deadlock detected` lines in PostgreSQL's own log: all of them, and those naming `database` (when the
 * log_line_prefix holds %d, as Debian's does). null when the log cannot be read.
 */
export function postgresLogDeadlocks(dir: string, database: string): { all: number; database: number } | null {
  try {
    if (!existsSync(dir)) return null;
    let all = 0;
    let here = 0;
    let read = 0;
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (!name.includes('.log') || !statSync(file).isFile()) continue;
      const text = readFileSync(file, 'utf8');
      read++;
      for (const line of text.split('\n')) {
        if (!line.includes('deadlock detected')) continue;
        all++;
        if (line.includes(`@${database} `) || line.includes(`@${database}:`)) here++;
      }
    }
    return read > 0 ? { all, database: here } : null;
  } catch {
    return null;
  }
}

/** "123456789" nano-units per 1M tokens as GET /v1/models prints it per token ("0.000000123456789"): exact, no floats. */
function perTokenToNanoPerMillion(text: string): bigint | null {
  const match = /^(\d+)(?:\.(\d{1,15}))?$/.exec(text);
  if (!match) return null;
  return BigInt(match[1]!) * 10n ** 15n + BigInt((match[2] ?? '').padEnd(15, '0'));
}

/** Polls Conduit's GET /v1/models until the probe model shows the seeded price: the table was reloaded. */
export async function waitForPrices(conduitUrl: string, seeded: SeededPrices, timeoutMs: number): Promise<number> {
  const probe = seeded.probe;
  if (!probe) return 0;
  const started = performance.now();
  let last = '';
  while (performance.now() - started < timeoutMs) {
    try {
      const res = await fetch(`${conduitUrl}/v1/models`);
      const text = await res.text();
      last = `${res.status} ${text.slice(0, 200)}`;
      if (res.ok) {
        const list = JSON.parse(text) as { data: { id: string; pricing?: { prompt?: string; completion?: string } }[] };
        const model = list.data.find((m) => m.id === probe.model);
        if (
          model?.pricing?.prompt !== undefined &&
          perTokenToNanoPerMillion(model.pricing.prompt) === probe.promptNanoPerMillion &&
          perTokenToNanoPerMillion(model.pricing.completion ?? '') === probe.completionNanoPerMillion
        ) {
          return performance.now() - started;
        }
      }
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await Bun.sleep(50);
  }
  throw new Error(`Conduit did not load the ${seeded.rows} price rows within ${timeoutMs} ms (GET /v1/models: ${last})`);
}

/** Start of the UTC day, as a `day` spend limit counts its periods. */
export const utcDay = (at: number) => {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
};
