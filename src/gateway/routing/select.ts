// The order in which a route's targets are tried: lower priority first; within one priority a weighted
// draw without replacement, so weights 3:1 send about three quarters of first attempts to the first
// target and the other one is still next in line when it fails. Pure, for its own tests and the bench.
import type { ModelPrice } from '../../pricing/prices';
import { matchPattern, type PatternTable } from '../../pricing/model-id';

export interface RouteTarget {
  providerId: string;
  /** Lower first. */
  priority: number;
  /** Share of first attempts within its priority; at least 1. */
  weight: number;
  /** The id sent upstream; absent: the id the client asked for. */
  model?: string | undefined;
  /** What this provider charges us per 1M tokens, nano-units as decimal text (as stored); absent: not given. */
  costPrice?: { promptNanoPerMillion: string; completionNanoPerMillion: string } | undefined;
  /** costPrice as a price, made once when the routes are loaded (a request's usage row takes it by reference). */
  cost?: ModelPrice | null;
}

/** The targets by priority, lower first, in their given order within one (a stable sort): made once a load. */
export function byPriority(targets: readonly RouteTarget[]): RouteTarget[] {
  return [...targets].sort((a, b) => a.priority - b.priority);
}

/**
 * The targets in the order they are tried; `random` in [0, 1) (Math.random outside tests). Runs once a
 * routed request, so it works on targets already sorted by priority (byPriority, at load) and draws only
 * within a priority that has several: a route of one target per priority costs one small array.
 */
export function orderTargets(targets: readonly RouteTarget[], random: () => number = Math.random): RouteTarget[] {
  const sorted = isByPriority(targets) ? targets : byPriority(targets);
  const ordered: RouteTarget[] = [];
  for (let start = 0; start < sorted.length; ) {
    let end = start + 1;
    while (end < sorted.length && sorted[end]!.priority === sorted[start]!.priority) end++;
    if (end - start === 1) ordered.push(sorted[start]!);
    else drawByWeight(sorted.slice(start, end), ordered, random);
    start = end;
  }
  return ordered;
}

function isByPriority(targets: readonly RouteTarget[]): boolean {
  for (let i = 1; i < targets.length; i++) if (targets[i]!.priority < targets[i - 1]!.priority) return false;
  return true;
}

/** Appends `left` to `ordered` in a weighted draw without replacement (weights below 1 count as 1). */
function drawByWeight(left: RouteTarget[], ordered: RouteTarget[], random: () => number) {
  while (left.length > 0) {
    let total = 0;
    for (const t of left) total += Math.max(1, t.weight);
    let draw = random() * total;
    let index = 0;
    while (index < left.length - 1) {
      draw -= Math.max(1, left[index]!.weight);
      if (draw < 0) break;
      index++;
    }
    ordered.push(left.splice(index, 1)[0]!);
  }
}

/**
 * The route a model takes, matched as prices are (pricing/model-id.ts): an exact pattern, else the longest
 * prefix pattern (`openai/*`, `*`), case-insensitively; a `:suffix` variant with no route of its own takes
 * its base id's exact route, so a route for `openai/gpt-4o-mini` also carries `openai/gpt-4o-mini:nitro`.
 */
export function matchRoute<T>(model: string, table: PatternTable<T>): T | null {
  const match = matchPattern(model, table);
  return match.kind === 'none' ? null : match.value;
}
