// The settlement journal: every settlement is appended to a local file in DATA_DIR before the answer's
// last byte leaves, and the file goes once the database holds every row in it. A process that dies
// (kill -9, a crash, a shutdown the database did not let finish) leaves its segments behind, and the next
// instance to start on that DATA_DIR writes whatever of them the database does not have yet, so no answered
// request goes unbilled.
//
// Segments: fixed-size files mapped into memory (MAP_SHARED). An append copies the row's line into the
// mapping: the bytes are in the kernel's page cache the moment the copy ends, so they outlive the process
// however it dies, and no system call is made per request (a write(2) per settlement cost ~10 µs of the
// event loop under load, a fifth of the throughput). A segment that is full is closed and the next one
// opened; a closed segment whose rows are all in the database is zeroed and reused, so the number of
// mappings (and the memory they hold) stays as small as the backlog. A segment's unused tail is zeros:
// the reader stops at the first NUL (JSON never holds a raw one). Where mmap is not available the
// segment falls back to a write(2) per row.
//
// A segment's name carries its process id and instance id: another process's segments are taken over
// only once that process is gone, and this process's own only when the instance that wrote them has
// stopped. Rows already in the database may be read again from a segment (a reused one's older rows, one
// the crash found full but not yet released): the replay skips request ids the database already has.
//
// What a machine crash (power, kernel) can still lose: rows the operating system had accepted but not yet
// written to disk. Appends are not fsync'ed one by one (that would cost milliseconds per request); the
// segments are synced when they are closed.
import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'settlements-';
const SUFFIX = '.jsonl';
/** A segment's size: a few thousand rows; the settlement backlog bound keeps two or three in use. */
const SEGMENT_BYTES = 2 * 1024 * 1024;
const encoder = new TextEncoder();

/** Instances of this process with a journal open: their segments are theirs alone. */
const liveInstances = new Set<string>();

/**
 * JSON with bigints as tagged strings ("125n"), so nano-unit amounts survive exactly. Callers on the hot
 * path hand in rows already tagged; the replacer only runs when a bigint is still there. Reading is plain
 * JSON: the reader knows which fields are amounts and untags those by name, since a text of the same shape
 * (a client's X-Request-Id "42n") must stay text.
 */
export const encodeRow = (value: unknown) => {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
  }
};
const decodeRow = (text: string): unknown => JSON.parse(text);

interface Segment {
  file: string;
  fd: number | null;
  /** The file mapped into memory; null where mmap failed (then each row is a write(2)). */
  map: Uint8Array | null;
  /** Bytes used in the mapping. */
  used: number;
  /** Rows appended and not yet in the database. */
  outstanding: number;
}

export interface Journal {
  /** Appends a row's line (JSON, no newline); returns a handle to pass to written() once the database holds it. */
  append(line: string): Segment;
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
  /** Closed segments whose rows are all in the database, ready to be zeroed and written again. */
  const spare: Segment[] = [];
  let current: Segment | null = null;
  let sequence = 0;
  let closed = false;

  function create(): Segment {
    const file = join(dir, `${PREFIX}${process.pid}-${safeName(instanceId)}-${++sequence}${SUFFIX}`);
    const fd = openSync(file, 'w+', 0o600);
    let map: Uint8Array | null = null;
    try {
      ftruncateSync(fd, SEGMENT_BYTES);
      map = Bun.mmap(file, { shared: true });
    } catch {
      ftruncateSync(fd, 0);
    }
    return { file, fd, map, used: 0, outstanding: 0 };
  }

  function release(segment: Segment) {
    segments.delete(segment);
    // A mapping cannot be undone by hand (it goes with the array), so a mapped segment is kept for reuse.
    if (segment.map && !closed) spare.push(segment);
    else remove(segment);
  }

  function remove(segment: Segment) {
    if (segment.fd !== null) {
      try {
        fsyncSync(segment.fd);
      } finally {
        closeSync(segment.fd);
        segment.fd = null;
      }
    }
    rmSync(segment.file, { force: true });
  }

  function rotate(): Segment {
    const previous = current;
    let next = spare.pop();
    if (next) {
      next.map!.fill(0, 0, next.used);
      next.used = 0;
    } else {
      next = create();
    }
    segments.add(next);
    current = next;
    if (previous && previous.outstanding === 0) release(previous);
    return next;
  }

  return {
    append(text) {
      if (closed) throw new Error('the settlement journal is closed');
      const line = `${text}\n`;
      let segment = current ?? rotate();
      if (segment.map) {
        // encodeInto writes whole characters only: a line that does not fit is written to a fresh segment.
        let result = encoder.encodeInto(line, segment.map.subarray(segment.used));
        if (result.read < line.length) {
          segment.map.fill(0, segment.used, segment.used + result.written);
          segment = rotate();
          result = encoder.encodeInto(line, segment.map!.subarray(0));
          if (result.read < line.length) {
            segment.map!.fill(0, 0, result.written);
            throw new Error('a settlement row is larger than a journal segment');
          }
        }
        segment.used += result.written;
      } else {
        if (segment.used >= SEGMENT_BYTES) segment = rotate();
        writeSync(segment.fd!, line);
        segment.used += line.length;
      }
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
        if (segment.outstanding === 0 && segment !== current && segments.has(segment)) release(segment);
      }
    },

    close() {
      if (closed) return;
      closed = true;
      for (const segment of spare.splice(0)) remove(segment);
      for (const segment of segments) {
        if (segment.outstanding === 0) {
          segments.delete(segment);
          remove(segment);
        } else if (segment.fd !== null) {
          // Rows not yet in the database stay for the next start: on disk now, not only in the page cache.
          fsyncSync(segment.fd);
          closeSync(segment.fd);
          segment.fd = null;
        }
      }
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
    const text = readFileSync(to, 'utf8');
    const end = text.indexOf('\0');
    for (const line of (end >= 0 ? text.slice(0, end) : text).split('\n')) {
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
