// Settlements the database could not take before the process had to go (an outage longer than the
// shutdown's retries) are saved to a file in DATA_DIR and written at the next start, so no answered
// request is left unbilled by a shutdown. The rows keep their lease ids: the settlement statement debits a
// lease that still exists, or the balance it went back to.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'usage-spill-';

/** JSON with bigints as tagged strings, so nano-unit amounts survive exactly. */
const encode = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
const decode = (text: string): unknown =>
  JSON.parse(text, (_k, v) => (typeof v === 'string' && /^-?\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v));

/** Writes the rows to a new spill file (atomically: a reader never sees half of it). */
export function saveSpill(dir: string, instanceId: string, rows: unknown[]): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${PREFIX}${instanceId.replace(/[^A-Za-z0-9_-]/g, '_')}-${Date.now()}.json`);
  writeFileSync(`${file}.tmp`, encode(rows), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  return file;
}

/**
 * Claims every spill file left in `dir` (renamed first, so two processes sharing the folder never replay
 * one twice) and returns their rows with a function that deletes the claimed files once written.
 */
export function takeSpills(dir: string, claimant: string): { rows: unknown[]; files: string[]; done: () => void } {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(PREFIX) && n.endsWith('.json'));
  } catch {
    return { rows: [], files: [], done: () => {} };
  }
  const rows: unknown[] = [];
  const claimed: string[] = [];
  for (const name of names) {
    const from = join(dir, name);
    const to = `${from}.replaying-${claimant.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    try {
      renameSync(from, to);
    } catch {
      continue; // another process took it
    }
    const parsed = decode(readFileSync(to, 'utf8'));
    if (Array.isArray(parsed)) rows.push(...parsed);
    claimed.push(to);
  }
  return {
    rows,
    files: claimed,
    done: () => {
      for (const file of claimed) rmSync(file, { force: true });
    },
  };
}
