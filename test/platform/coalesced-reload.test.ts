// The reload behind the in-memory providers, routes and prices (jobs/coalesced-reload.ts): a change
// notified while a load is reading must be read by a load that starts after it, or the instance keeps the
// old copy until its periodic refresh (a route set right after a provider was added went unseen by a
// second instance: routing.test.ts "two instances share the cooldown" failed in CI).
import { expect, test } from 'bun:test';
import { coalescedReload } from '../../src/jobs/coalesced-reload';

function gatedLoads() {
  const gates: (() => void)[] = [];
  let table = 0;
  const seen: number[] = [];
  const load = () =>
    new Promise<void>((resolve) => {
      const read = table; // the load reads the table as it is when it starts
      gates.push(() => {
        seen.push(read);
        resolve();
      });
    });
  return { load, seen, gates, write: (value: number) => (table = value) };
}

test('a call while a load runs gets one more load after it, which reads the change', async () => {
  const loads = gatedLoads();
  const reload = coalescedReload(loads.load);
  const first = reload();
  loads.write(1); // committed after the first load read the table
  const second = reload();
  expect(loads.gates).toHaveLength(1);
  loads.gates[0]!();
  await first;
  await Bun.sleep(0);
  expect(loads.gates).toHaveLength(2);
  loads.gates[1]!();
  await second;
  expect(loads.seen).toEqual([0, 1]);
});

test('every call during one load shares the single follow-up load; a call after that starts afresh', async () => {
  const loads = gatedLoads();
  const reload = coalescedReload(loads.load);
  const first = reload();
  const queued = [reload(), reload(), reload()];
  expect(queued[0]).toBe(queued[1]!);
  expect(queued[1]).toBe(queued[2]!);
  loads.gates[0]!();
  await first;
  await Bun.sleep(0);
  loads.gates[1]!();
  await Promise.all(queued);
  expect(loads.gates).toHaveLength(2);
  const later = reload();
  expect(loads.gates).toHaveLength(3);
  loads.gates[2]!();
  await later;
});

test('a failed load does not stop the next one', async () => {
  let calls = 0;
  const reload = coalescedReload(async () => {
    calls += 1;
    if (calls === 1) throw new Error('database away');
  });
  expect(await reload().catch((error: Error) => error.message)).toBe('database away');
  await reload();
  expect(calls).toBe(2);
});
