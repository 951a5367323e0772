// How the suite itself must wait. bun:test's expect(promise).resolves / .rejects waits for the promise in a
// nested event-loop tick, and the app under test runs in this same process: while a test sat in that wait,
// postgres.js's query tail (sent from setImmediate) stayed unsent until an unrelated timer fired, and a
// password-reset form "answered" 30 s late (5 of 45 runs; 0 of 50 after the waits became expect(await p)).
// Await the promise and assert on its value, or `.catch((e) => e)` for an expected failure.
import { expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TEST_DIR = fileURLToPath(new URL('..', import.meta.url));
const NESTED_WAIT = /\)\s*\.(resolves|rejects)\b/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

export function nestedWaits(source: string): number[] {
  return source
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => !line.startsWith('//') && !line.startsWith('*') && NESTED_WAIT.test(line))
    .map(({ number }) => number);
}

test('the check finds a nested wait and passes over a comment and a plain await', () => {
  expect(nestedWaits("await expect(page.textContent()).resolves.toBe('x');")).toEqual([1]);
  expect(nestedWaits('// expect(p).rejects is named here only\nexpect(await p).toBe(1);\nexpect(p).rejects.toThrow();')).toEqual([3]);
});

test('no test waits with expect(promise).resolves or .rejects', () => {
  const offenders = testFiles(TEST_DIR)
    .filter((file) => !file.endsWith('test-style.test.ts'))
    .flatMap((file) => nestedWaits(readFileSync(file, 'utf8')).map((line) => `${file.slice(TEST_DIR.length)}:${line}`));
  expect(offenders).toEqual([]);
});
