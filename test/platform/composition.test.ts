// The composition (src/features.ts read by src/platform/compose.ts): features are built in list order from
// the base and the features above them, and nothing reaches a feature through a forward reference.
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { features } from '../../src/features';
import { composeFeatures } from '../../src/platform/compose';
import { createEvents, defineEvent } from '../../src/platform/events';
import { type Base, defineFeature, defineSlot } from '../../src/platform/feature';
import { createLifecycle } from '../../src/platform/lifecycle';
import { createLogger } from '../../src/logger';
import { ROOT } from '../../scripts/import-graph';

const logger = createLogger('silent');
// A made-up feature list needs no database: its features use only the lifecycle and the events of the base.
const base = { logger, lifecycle: createLifecycle(logger), events: createEvents(logger) } as unknown as Base;

describe('composing a feature list', () => {
  const first = defineSlot<{ value: number }>('first');
  const second = defineSlot<{ doubled: number }>('second');
  const firstFeature = defineFeature({ slot: first, create: () => ({ value: 21 }) });
  const secondFeature = defineFeature({ slot: second, create: (_base, use) => ({ doubled: use(first).value * 2 }) });

  test('a feature uses those above it, by their slots', () => {
    const composition = composeFeatures([firstFeature, secondFeature], base);
    expect(composition.get(second).doubled).toBe(42);
  });

  test('a feature using one further down the list, or one not listed, is refused with both names', () => {
    expect(() => composeFeatures([secondFeature, firstFeature], base)).toThrow('feature "second" uses "first", which comes after it in the list');
    expect(() => composeFeatures([secondFeature], base)).toThrow('feature "second" uses "first", which is not in the list');
  });

  test('a feature listed twice is refused', () => {
    expect(() => composeFeatures([firstFeature, firstFeature], base)).toThrow('feature "first" is listed twice');
  });

  test('features start in list order; their stops run in the reverse order', async () => {
    const seen: string[] = [];
    const lifecycle = createLifecycle(logger);
    const starting = (name: string) =>
      defineFeature({
        slot: defineSlot<object>(name),
        create: () => ({}),
        start: (_api, { lifecycle: own }) => {
          seen.push(`start ${name}`);
          own.onShutdown(name, () => void seen.push(`stop ${name}`));
        },
      });
    await composeFeatures([starting('a'), starting('b')], { ...base, lifecycle }).start();
    await lifecycle.shutdown();
    expect(seen).toEqual(['start a', 'start b', 'stop b', 'stop a']);
  });

  test('an event reaches the features that listen, whoever emits it; a failing listener does not stop the others', () => {
    const events = createEvents(logger);
    const revoked = defineEvent<string>('test.revoked');
    const heard: string[] = [];
    events.on(revoked, () => {
      throw new Error('listener failed');
    });
    events.on(revoked, (keyId) => void heard.push(keyId));
    events.emit(revoked, 'key-1');
    expect(heard).toEqual(['key-1']);
  });

  test("emitAndWait awaits each listener in turn and lets a failure through (the emitter's transaction then fails)", async () => {
    const events = createEvents(logger);
    const paid = defineEvent<string>('test.paid');
    const done: string[] = [];
    events.on(paid, async (order) => {
      await Bun.sleep(5);
      done.push(`first ${order}`);
    });
    events.on(paid, (order) => void done.push(`second ${order}`));
    await events.emitAndWait(paid, 'ORD-1');
    expect(done).toEqual(['first ORD-1', 'second ORD-1']);
    events.on(paid, async () => {
      throw new Error('could not queue the message');
    });
    const failure = await events.emitAndWait(paid, 'ORD-2').catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe('could not queue the message');
  });
});

describe("the service's feature list", () => {
  test('every feature has its own slot, and no two serve the same router', () => {
    const names = features.map((feature) => feature.slot.name);
    expect(new Set(names).size).toBe(names.length);
    const routerKeys = features.flatMap((feature) => Object.keys(feature.routers ?? {}));
    expect(new Set(routerKeys).size).toBe(routerKeys.length);
  });

  /** The composition's files: the root, the list, and each feature's definition and API. */
  function compositionFiles(): string[] {
    const out: string[] = [join(ROOT, 'src/services.ts'), join(ROOT, 'src/features.ts')];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if ((name === 'api.ts' || name === 'feature.ts') && !path.includes('/platform/')) out.push(path);
      }
    };
    walk(join(ROOT, 'src'));
    return out;
  }

  test('the composition holds no forward reference: no `let` filled in later, no `…Ref` stand-in', () => {
    const files = compositionFiles();
    expect(files.length).toBeGreaterThan(15);
    const found = files.flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, index) => (/^\s*let\s|\b\w+Ref\b/.test(line) ? [`${relative(ROOT, path)}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  test('the check above finds a forward reference written the old way', () => {
    const old = ['  let verifier: KeyVerifier | undefined;', '  let billingRef: { keyChanged(keyId: string): void } | undefined;'];
    expect(old.filter((line) => /^\s*let\s|\b\w+Ref\b/.test(line))).toHaveLength(2);
  });
});
