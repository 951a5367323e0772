// Money is kept in integer nano-units (1e-9 of the balance currency); floats appear only in JSON output.

export const NANO_PER_UNIT = 1_000_000_000n;

/** The registration bonus: 3.00 in the balance currency. */
export const REGISTRATION_BONUS_NANO = 3n * NANO_PER_UNIT;

/** Renders nano-units as a JSON number in currency units (2999999875n → 2.999999875). */
export function nanoToUnits(nano: bigint): number {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const whole = abs / NANO_PER_UNIT;
  const frac = abs % NANO_PER_UNIT;
  // Building the decimal text first keeps the rendering as close as a double allows.
  const text = `${negative ? '-' : ''}${whole}.${frac.toString().padStart(9, '0')}`;
  return Number(text);
}

/** Cost of a number of tokens at a price per token in nano-units. */
export function tokensCostNano(tokens: number, tokenPriceNano: bigint): bigint {
  return BigInt(tokens) * tokenPriceNano;
}
