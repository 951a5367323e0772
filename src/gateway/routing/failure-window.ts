// The failure ratio rule (PROVIDER_FAILURE_RATIO of PROVIDER_FAILURE_WINDOW): a provider whose own faults
// are at least ceil(ratio × window) of its last `window` verdicts goes to cooldown, even when successes
// come between them and the failures-in-a-row counter never reaches PROVIDER_FAILURE_THRESHOLD.
//
// Kept per instance, in memory: a success must cost no I/O (house rule 6), and one instance sees enough of
// a provider's requests to judge it. When the rule trips, the cooldown is written through the health's
// shared write (health.ts), so every instance follows it. With N instances behind a balancer, each sees
// about 1/N of the requests, so the rule trips on each once its share of the window went wrong: the
// ratio is the same, only the window is filled N times slower.
//
// A verdict is a bit in a ring of `window` bits per provider: one array write and a count, no allocation.

export interface FailureWindowOptions {
  /** The last verdicts kept; 0 turns the rule off. */
  window: number;
  /** Share of faults among them that trips the rule (0 < ratio ≤ 1). */
  ratio: number;
}

interface Ring {
  bits: Uint8Array;
  next: number;
  filled: number;
  faults: number;
}

export function createFailureWindow({ window, ratio }: FailureWindowOptions) {
  const limit = Math.max(1, Math.ceil(ratio * window - 1e-9));
  const rings = new Map<string, Ring>();

  function push(providerId: string, fault: 0 | 1): boolean {
    if (window === 0) return false;
    let ring = rings.get(providerId);
    if (!ring) rings.set(providerId, (ring = { bits: new Uint8Array(window), next: 0, filled: 0, faults: 0 }));
    if (ring.filled === window) ring.faults -= ring.bits[ring.next]!;
    else ring.filled += 1;
    ring.bits[ring.next] = fault;
    ring.faults += fault;
    ring.next = (ring.next + 1) % window;
    return fault === 1 && ring.faults >= limit;
  }

  return {
    /** Faults among the last `window` verdicts that trip the rule. */
    limit,

    /** A success of the provider (its answer, or the client's own 4xx). */
    succeeded(providerId: string): void {
      push(providerId, 0);
    },

    /** A fault of the provider; true when it trips the rule (the window starts over then). */
    failed(providerId: string): boolean {
      const tripped = push(providerId, 1);
      if (tripped) rings.delete(providerId);
      return tripped;
    },

    /** The provider starts over (an operator changed it). */
    forget(providerId: string): void {
      rings.delete(providerId);
    },
  };
}

export type FailureWindow = ReturnType<typeof createFailureWindow>;
