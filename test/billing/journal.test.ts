// The settlement journal's lines across segment ends: every row appended and not yet written comes back
// whole and exactly once at recovery, wherever its line fell (a line that does not fit, its newline
// included, goes to a fresh segment; multi-byte characters are never split).
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJournal, recoverJournal } from '../../src/gateway/journal';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('settlement journal', () => {
  test('rows of every length, across many 2 MiB segments, come back whole at recovery', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conduit-journal-'));
    dirs.push(dir);
    const journal = openJournal(dir, 'journal-test');
    const rows: unknown[] = [];
    let bytes = 0;
    for (let i = 0; bytes < 7 * 1024 * 1024; i++) {
      // Lengths that land line ends at every offset near a segment's end; Cyrillic is two bytes a character.
      const text = (i % 3 === 0 ? 'я' : 'x').repeat(1 + ((i * 7919) % 90_000));
      const row = [i, text, 'ok'];
      rows.push(row);
      journal.append(JSON.stringify(row));
      bytes += Buffer.byteLength(JSON.stringify(row)) + 1;
    }
    // Four or more segments were used; nothing was written to the database, so they all stay.
    expect(readdirSync(dir).length).toBeGreaterThanOrEqual(4);
    journal.close();

    const recovered = recoverJournal(dir, 'recovering-test');
    const byIndex = new Map<number, unknown>();
    for (const row of recovered.rows) byIndex.set((row as [number])[0], row);
    expect(recovered.rows.length).toBe(rows.length);
    expect([...byIndex.keys()].sort((a, b) => a - b)).toEqual(rows.map((_, i) => i));
    for (const row of rows) expect(byIndex.get((row as [number])[0])).toEqual(row);
    recovered.done();
    expect(readdirSync(dir)).toEqual([]);
  });
});
