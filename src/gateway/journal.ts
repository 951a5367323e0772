// The settlement journal: every settlement is appended to a local file in DATA_DIR before the answer's
// last byte leaves, and the file goes once the database holds every row in it. A process that dies
// (kill -9, a crash, a shutdown the database did not let finish) leaves its segments behind, and the next
// instance to start on that DATA_DIR writes whatever of them the database does not have yet, so no answered
// request goes unbilled.
//
// Segments: the journal writes one file at a time and starts a new one every few thousand rows or
// seconds; a closed segment whose rows are all in the database is deleted. A segment's name carries its
// process id and instance id: another process's segments are taken over only once that process is gone,
// and this process's own only when the instance that wrote them has stopped.
//
// What a machine crash (power, kernel) can still lose: rows the operating system had accepted but not yet
// written to disk. Appends are not fsync'ed one by one (that would cost milliseconds per request); the
// segments are synced when they are closed.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'settlements-';
const SUFFIX = '.jsonl';
const ROWS_PER_SEGMENT = 5_000;
const SEGMENT_MS = 5_000;

/** Instances of this process with a journal open: their segments are theirs alone. */
const liveInstances = new Set<string>();

/**
 * JSON with bigints as tagged strings ("125n"), so nano-unit amounts survive exactly. Callers on the hot
 * path hand in rows already tagged; the replacer only runs when a bigint is still there.
 */
export const encodeRow = (value: unknown) => {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
  }
};
const decodeRow = (text: string): unknown =>
  JSON.parse(text, (_k, v) => (typeof v === 'string' && /^-?\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v));

interface Segment {
  file: string;
  fd: number | null;
  rows: number;
  /** Rows appended and not yet in the database. */
  outstanding: number;
  openedAt: number;
}

export interface Journal {
  /** Appends a row; returns a handle to pass to written() once the database holds it. */
  append(row: unknown): Segment;
  /** The database holds these rows: segments emptied by it are deleted. */
  written(segments: (Segment | null)[]): void;
  /** Stops appending; segments with rows not yet written stay for the next start. */
  close(): void;
}

export interface RecoveredRows {
  rows: unknown[];
  /** Deletes the recovered segments (call once their rows are in the database). */
  done(): void;
}

const safeName = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

export function openJournal(dir: string, instanceId: string): Journal {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  liveInstances.add(instanceId);
  const segments = new Set<Segment>();
  let current: Segment | null = null;
  let sequence = 0;
  let closed = false;

  function finish(segment: Segment) {
    if (segment.fd !== null) {
      try {
        fsyncSync(segment.fd);
      } finally {
        closeSync(segment.fd);
        segment.fd = null;
      }
    }
    if (segment.outstanding === 0) {
      rmSync(segment.file, { force: true });
      segments.delete(segment);
    }
  }

  function rotate(): Segment {
    if (current) finish(current);
    const file = join(dir, `${PREFIX}${process.pid}-${safeName(instanceId)}-${++sequence}${SUFFIX}`);
    current = { file, fd: openSync(file, 'a', 0o600), rows: 0, outstanding: 0, openedAt: Date.now() };
    segments.add(current);
    return current;
  }

  return {
    append(row) {
      if (closed) throw new Error('the settlement journal is closed');
      let segment = current;
      if (!segment || segment.rows >= ROWS_PER_SEGMENT || Date.now() - segment.openedAt > SEGMENT_MS) segment = rotate();
      writeSync(segment.fd!, `${encodeRow(row)}\n`);
      segment.rows += 1;
      segment.outstanding += 1;
      return segment;
    },

    written(list) {
      const touched = new Set<Segment>();
      for (const segment of list) {
        if (!segment) continue;
        segment.outstanding -= 1;
        touched.add(segment);
      }
      for (const segment of touched) {
        if (segment.outstanding === 0 && segment !== current) {
          rmSync(segment.file, { force: true });
          segments.delete(segment);
        }
      }
    },

    close() {
      if (closed) return;
      closed = true;
      if (current) finish(current);
      current = null;
      liveInstances.delete(instanceId);
    },
  };
}

/**
 * Takes over the segments of instances that are gone (renamed first, so two starting instances never
 * both replay one) and reads their rows; a last line cut off by the crash is skipped.
 */
export function recoverJournal(dir: string, claimant: string): RecoveredRows {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(PREFIX) && (n.endsWith(SUFFIX) || n.includes(`${SUFFIX}.recovering-`)));
  } catch {
    return { rows: [], done: () => {} };
  }
  const rows: unknown[] = [];
  const claimed: string[] = [];
  for (const name of names) {
    // Who holds the file: its writer (<pid>-<instance>-<n>.jsonl), or an instance that began to recover it
    // and may have died doing so (….jsonl.recovering-<pid>-<instance>).
    const recovering = name.indexOf(`${SUFFIX}.recovering-`);
    const holder = recovering >= 0 ? name.slice(recovering + SUFFIX.length + '.recovering-'.length) : name.slice(PREFIX.length, -SUFFIX.length).replace(/-\d+$/, '');
    const dash = holder.indexOf('-');
    const pid = Number(holder.slice(0, dash));
    const instance = holder.slice(dash + 1);
    const holderLive = pid === process.pid ? [...liveInstances].some((id) => safeName(id) === instance) : isAlive(pid);
    if (holderLive) continue;
    const from = join(dir, name);
    const base = recovering >= 0 ? from.slice(0, from.length - (name.length - recovering - SUFFIX.length)) : from;
    const to = `${base}.recovering-${process.pid}-${safeName(claimant)}`;
    try {
      renameSync(from, to);
    } catch {
      continue; // another instance took it
    }
    for (const line of readFileSync(to, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        rows.push(decodeRow(line));
      } catch {
        // The line the crash cut off: its answer had not been sent whole either.
      }
    }
    claimed.push(to);
  }
  return {
    rows,
    done: () => {
      for (const file of claimed) rmSync(file, { force: true });
    },
  };
}
