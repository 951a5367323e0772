// costOf works in doubles while every figure is an integer below 2^53 and in BigInts beyond: both give
// the exact cost, rounded once (prompt down, the total up), as worked out here in BigInts alone.
import { describe, expect, test } from 'bun:test';
import { costOf, type ModelPrice } from '../../src/pricing/prices';

function reference(promptPrice: bigint, completionPrice: bigint, promptTokens: number, completionTokens: number) {
  const promptExact = BigInt(promptTokens) * promptPrice;
  const exact = promptExact + BigInt(completionTokens) * completionPrice;
  const totalNano = (exact + 999_999n) / 1_000_000n;
  const promptCostNano = promptExact / 1_000_000n;
  return { promptCostNano, completionCostNano: totalNano - promptCostNano, totalNano };
}

const price = (prompt: bigint, completion: bigint): ModelPrice => ({ pattern: null, promptNanoPerMillion: prompt, completionNanoPerMillion: completion });

describe('costOf', () => {
  test('equals the exact BigInt cost over random and boundary figures', () => {
    const prices = [0n, 1n, 125_000_000n, 999_999n, 1_000_001n, 2_500_000_000n, 60_000_000_000n, 2n ** 53n - 1n, 2n ** 53n + 1n, 10n ** 18n];
    const tokens = [0, 1, 7, 999_999, 1_000_000, 1_000_001, 128_000, 2 ** 31, 1e12, 2 ** 53 - 1];
    let cases = 0;
    for (const p of prices) {
      for (const c of prices) {
        for (const pt of tokens) {
          for (const ct of tokens) {
            expect(costOf(price(p, c), pt, ct)).toEqual(reference(p, c, pt, ct));
            cases += 1;
          }
        }
      }
    }
    // Random figures around the 2^53 edge of the double path, where a rounded product would show.
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let i = 0; i < 20_000; i++) {
      const p = BigInt(next()) * BigInt(1 + (next() % 4096));
      const c = BigInt(next());
      const pt = next() * (1 + (next() % 4096));
      const ct = next() % 100_000;
      expect(costOf(price(p, c), pt, ct)).toEqual(reference(p, c, pt, ct));
      cases += 1;
    }
    expect(cases).toBe(10_000 + 20_000);
  });

  test('a price that does not land on a whole nano-unit per token: prompt rounded down, the request up once', () => {
    // 0.3 nano a token both ways: 3 prompt tokens are 0.9 → 0 nano, the request's 1.8 → 2 nano.
    expect(costOf(price(300_000n, 300_000n), 3, 3)).toEqual({ promptCostNano: 0n, completionCostNano: 2n, totalNano: 2n });
  });
});
