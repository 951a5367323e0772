// costOf with a prompt's cache reads and writes (issue 45): fresh, cached and written prompt tokens and the
// completion each at their price, summed exactly and rounded once (prompt down, the total up), in doubles
// while every figure is an exact integer and in BigInts beyond; the parts never exceed the prompt; the cache
// prices a row does not name are derived from its prompt price, rounded up to a whole nano-unit per 1M.
import { describe, expect, test } from 'bun:test';
import { costOf, DEFAULT_CACHE_RATIOS, modelPriceOf, promptParts, scaledPerMillion, totalCostOf, withCachePrices, type ModelPrice } from '../../src/pricing/prices';

function reference(p: ModelPrice, prompt: number, completion: number, cached: number, written: number) {
  const parts = { cached: Math.min(cached, prompt), written: 0 };
  parts.written = Math.min(written, prompt - parts.cached);
  const fresh = prompt - parts.cached - parts.written;
  const promptExact =
    BigInt(fresh) * p.promptNanoPerMillion + BigInt(parts.cached) * p.cachedPromptNanoPerMillion! + BigInt(parts.written) * p.cacheWriteNanoPerMillion!;
  const totalNano = (promptExact + BigInt(completion) * p.completionNanoPerMillion + 999_999n) / 1_000_000n;
  const promptCostNano = promptExact / 1_000_000n;
  return { promptCostNano, completionCostNano: totalNano - promptCostNano, totalNano };
}

const price = (prompt: bigint, completion: bigint, cached: bigint, write: bigint): ModelPrice => ({
  pattern: null,
  promptNanoPerMillion: prompt,
  completionNanoPerMillion: completion,
  cachedPromptNanoPerMillion: cached,
  cacheWriteNanoPerMillion: write,
});

describe('costOf with cached and written prompt tokens', () => {
  test('equals the exact BigInt cost over boundary and random figures, on both sides of 2^53', () => {
    const prices = [0n, 1n, 12_345_679n, 999_999n, 125_000_000n, 2n ** 53n + 1n, 10n ** 18n];
    const tokens = [0, 1, 7, 999_999, 1_000_001, 2 ** 31, 1e12];
    let cases = 0;
    for (const pp of prices) {
      for (const cp of [0n, 1n, 12_345_679n, 10n ** 18n]) {
        for (const pt of tokens) {
          for (const written of [0, 1, 500_000, 1e12]) {
            for (const cached of [1, 3, pt, pt + 5]) {
              const p = price(pp, 987_654_321n, cp, pp * 2n + 1n);
              expect(costOf(p, pt, 17, cached, written)).toEqual(reference(p, pt, 17, cached, written));
              expect(totalCostOf(p, pt, 17, cached, written)).toBe(reference(p, pt, 17, cached, written).totalNano);
              cases += 1;
            }
          }
        }
      }
    }
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let i = 0; i < 20_000; i++) {
      const p = price(BigInt(next()) * BigInt(1 + (next() % 4096)), BigInt(next()), BigInt(next()), BigInt(next()) * 3n);
      const pt = next() * (1 + (next() % 4096));
      const cached = next() % (pt + 2);
      const written = next() % (pt + 2);
      const ct = next() % 100_000;
      expect(costOf(p, pt, ct, cached, written)).toEqual(reference(p, pt, ct, cached, written));
      cases += 1;
    }
    expect(cases).toBeGreaterThan(20_000);
  });

  test('rounded once for the whole request, not per part', () => {
    // 0.3 nano a token for each kind: 1 fresh + 1 cached + 1 written + 1 completion = 1.2 → 2 nano, where rounding
    // each part up would say 4.
    expect(costOf(price(300_000n, 300_000n, 300_000n, 300_000n), 3, 1, 1, 1)).toEqual({ promptCostNano: 0n, completionCostNano: 2n, totalNano: 2n });
  });

  test('the traps: parts never exceed the prompt, figures that are not counts are none', () => {
    expect(promptParts(100, 500, 0)).toEqual({ fresh: 0, cached: 100, cacheWrite: 0 });
    expect(promptParts(100, 80, 50)).toEqual({ fresh: 0, cached: 80, cacheWrite: 20 });
    expect(promptParts(100, -5, Number.NaN)).toEqual({ fresh: 100, cached: 0, cacheWrite: 0 });
    expect(promptParts(100, Number.POSITIVE_INFINITY, 10.7)).toEqual({ fresh: 90, cached: 0, cacheWrite: 10 });
    expect(promptParts(-3, 5, 5)).toEqual({ fresh: 0, cached: 0, cacheWrite: 0 });
    const p = price(1_000_000n, 1_000_000n, 100_000n, 1_250_000n);
    expect(costOf(p, 100, 0, 500, 0).totalNano).toBe(10n);
    expect(costOf(p, 0, 0, 500, 500).totalNano).toBe(0n);
  });

  test('a price without cache prices charges its cache parts as fresh prompt tokens (never below the prompt price)', () => {
    const bare: ModelPrice = { pattern: null, promptNanoPerMillion: 2_000_000n, completionNanoPerMillion: 0n };
    expect(costOf(bare, 10, 0, 4, 3).totalNano).toBe(20n);
  });

  test('derived cache prices: prompt × ratio, rounded up to a whole nano-unit per 1M', () => {
    expect(scaledPerMillion(123_456_789n, DEFAULT_CACHE_RATIOS.readNano)).toBe(12_345_679n);
    expect(scaledPerMillion(123_456_789n, DEFAULT_CACHE_RATIOS.writeNano)).toBe(154_320_987n);
    expect(scaledPerMillion(120_000_000n, 100_000_000n)).toBe(12_000_000n);
    const row = { pattern: 'x', promptNanoPerMillion: 10n, completionNanoPerMillion: 20n, kind: 'per_token', perSecondNano: 0n };
    expect(modelPriceOf(row)).toEqual({
      pattern: 'x',
      promptNanoPerMillion: 10n,
      completionNanoPerMillion: 20n,
      cachedPromptNanoPerMillion: 1n,
      cacheWriteNanoPerMillion: 13n,
    });
    expect(modelPriceOf({ ...row, cachedPromptNanoPerMillion: 4n, cacheWriteNanoPerMillion: null }, { readNano: 0n, writeNano: 2_000_000_000n })).toMatchObject({
      cachedPromptNanoPerMillion: 4n,
      cacheWriteNanoPerMillion: 20n,
    });
    expect(withCachePrices({ pattern: null, promptNanoPerMillion: 7n, completionNanoPerMillion: 0n }, { readNano: 0n, writeNano: 0n })).toMatchObject({
      cachedPromptNanoPerMillion: 0n,
      cacheWriteNanoPerMillion: 0n,
    });
  });
});
