// Child processes of the benchmark: start with a deadline, stop by pid (TERM, then KILL), read peak RSS.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

export interface Child {
  name: string;
  proc: Bun.Subprocess;
  pid: number;
}

/** Starts a bun script that prints `READY <port>` on stdout once it listens. */
export async function startReadyChild(name: string, argv: string[], env: Record<string, string>, timeoutMs = 15_000): Promise<{ child: Child; port: number }> {
  const proc = Bun.spawn(argv, { env, stdin: 'ignore', stdout: 'pipe', stderr: 'inherit' });
  const child = { name, proc, pid: proc.pid };
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const next = await Promise.race([reader.read(), Bun.sleep(Math.max(1, deadline - Date.now())).then(() => null)]);
    if (next === null || next.done) break;
    seen += decoder.decode(next.value, { stream: true });
    const match = /READY (\d+)/.exec(seen);
    if (match) {
      // Keep draining so the child never blocks on a full pipe.
      void (async () => {
        try {
          while (!(await reader.read()).done);
        } catch {
          // The child is gone.
        }
      })();
      return { child, port: Number(match[1]) };
    }
  }
  await stopChild(child, 1000);
  throw new Error(`${name} did not become ready within ${timeoutMs} ms; output: ${seen.slice(0, 500)}`);
}

/** SIGTERM, then SIGKILL after graceMs; resolves to the exit code (null when killed). */
export async function stopChild(child: Child, graceMs: number): Promise<number | null> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return child.proc.exitCode;
  child.proc.kill('SIGTERM');
  const exited = await Promise.race([child.proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
  if (!exited) {
    child.proc.kill('SIGKILL');
    await child.proc.exited;
    return null;
  }
  return child.proc.exitCode;
}

/** Peak resident set size (VmHWM) of a live process, in bytes. */
export function peakRssBytes(pid: number): number | null {
  return statusKb(pid, 'VmHWM');
}

/** Current resident set size (VmRSS) of a live process, in bytes. */
export function rssBytes(pid: number): number | null {
  return statusKb(pid, 'VmRSS');
}

function statusKb(pid: number, field: string): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** A port free on 127.0.0.1 right now (the OS picks it; the caller binds it soon after). */
export function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

/** Polls url until it answers 200 or the deadline passes. */
export async function waitForHttp(url: string, timeoutMs: number, isAlive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`process exited before ${url} answered`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
      last = `status ${res.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (${last})`);
}

/** CPU time (user + system) of a process so far, in clock ticks; 0 once it is gone. */
export function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces, start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * A process and every process below it (WORKERS > 1: Conduit's supervisor and its workers), from the
 * parent pids /proc shows now. A process alone without children is just itself.
 */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(parent);
      if (list) list.push(Number(entry));
      else children.set(parent, [Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

/** CPU time of a process and everything below it (a supervisor's workers), in clock ticks. */
export function treeCpuTicks(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + cpuTicks(p), 0);
}

/** Resident set size of a process and everything below it, in bytes (the sum of each one's VmRSS). */
export function treeRssBytes(pid: number): number | null {
  const each = processTree(pid).map(rssBytes);
  return each.every((b) => b === null) ? null : each.reduce<number>((sum, b) => sum + (b ?? 0), 0);
}

/**
 * Peak RSS of a process and everything below it: the sum of each one's VmHWM, an upper bound of the
 * tree's true peak (the processes need not all have peaked at once); a single process's own VmHWM.
 */
export function treePeakRssBytes(pid: number): number | null {
  const each = processTree(pid).map(peakRssBytes);
  return each.every((b) => b === null) ? null : each.reduce<number>((sum, b) => sum + (b ?? 0), 0);
}

/** resetPeakRss over a process and everything below it; false when any could not be reset. */
export function resetTreePeakRss(pid: number): boolean {
  return processTree(pid)
    .map(resetPeakRss)
    .every((ok) => ok);
}

/** CPU time of every PostgreSQL server process on the machine, in clock ticks. */
export function postgresTicks(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuTicks(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

/** Busy CPU time of the whole machine (all cores, idle and iowait excluded), in clock ticks. */
export function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return user! + nice! + system! + irq! + softirq! + steal!;
}

/** Clock ticks per second of /proc's CPU figures. */
export const CLOCK_TICKS_PER_SECOND = (() => {
  const r = Bun.spawnSync(['getconf', 'CLK_TCK'], { stdout: 'pipe', stderr: 'ignore' });
  const n = Number(r.stdout.toString().trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

/**
 * argv run through `sh` with the soft limit of open files raised to `files` (or the hard limit when that
 * is lower), then exec'd: same pid, so stopChild and /proc readings reach the program itself. Thousands of
 * concurrent streams hold a socket each (Conduit two: the client's and the upstream's).
 */
export function withOpenFiles(argv: string[], files: number): string[] {
  return ['sh', '-c', `ulimit -n ${Math.floor(files)} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"`, 'sh', ...argv];
}

/** The soft limit of open files of a live process, or null. */
export function openFilesLimit(pid: number): number | null {
  try {
    const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined ? null : soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft);
  } catch {
    return null;
  }
}

/** A variable of a live process's environment as it runs now (after an execve, the new one), or null. */
export function environOf(pid: number, name: string): string | null {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'latin1')
      .split('\0')
      .find((e) => e.startsWith(`${name}=`));
    return entry === undefined ? null : entry.slice(name.length + 1);
  } catch {
    return null;
  }
}

/**
 * Resets a live process's peak RSS (VmHWM) to its current RSS (`5` into /proc/<pid>/clear_refs, Linux ≥ 4.0),
 * so the next VmHWM reading is the peak since now. false when the kernel or permissions do not allow it.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const hwm = statusKb(pid, 'VmHWM');
    const rss = statusKb(pid, 'VmRSS');
    // Just reset: the peak is the current RSS, give or take what the process touched meanwhile.
    return hwm !== null && rss !== null && hwm <= rss + 16 * 1024 * 1024;
  } catch {
    return false;
  }
}

/**
 * What every bench starts Conduit with: production mode on 127.0.0.1:`port`, behind an https address no mail
 * leaves for, with secrets of its own (a bench that restarts one instance passes the same secrets again).
 */
export function conduitEnv(port: number): Record<string, string> {
  return {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL: 'https://conduit.bench.invalid',
    JWT_SECRET: randomBytes(48).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  };
}
