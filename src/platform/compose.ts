// Builds the features of the list in its order, each from the base and the features before it, and starts
// them in the same order. A feature asking for one further down the list is refused at once, naming both:
// the list is the dependency order, and there is no other way to reach a feature that is not built yet.
import type { AnyFeature, Base, Slot, Use } from './feature';

export interface Composition {
  /** A built feature's API (for the composition root, its routes and tests; features use `use`). */
  get: Use;
  start(): Promise<void>;
}

export function composeFeatures(features: readonly AnyFeature[], base: Base): Composition {
  const built = new Map<string, unknown>();
  const order = features.map((feature) => feature.slot.name);
  const duplicate = order.find((name, index) => order.indexOf(name) !== index);
  if (duplicate) throw new Error(`feature "${duplicate}" is listed twice`);
  const get: Use = <Api>(slot: Slot<Api>): Api => {
    if (!built.has(slot.name)) throw new Error(`feature "${slot.name}" is not built`);
    return built.get(slot.name) as Api;
  };
  for (const feature of features) {
    const use: Use = <Api>(slot: Slot<Api>): Api => {
      if (!built.has(slot.name)) {
        const where = order.includes(slot.name) ? 'comes after it in the list' : 'is not in the list';
        throw new Error(`feature "${feature.slot.name}" uses "${slot.name}", which ${where}`);
      }
      return built.get(slot.name) as Api;
    };
    built.set(feature.slot.name, feature.create(base, use));
  }
  return {
    get,
    async start() {
      for (const feature of features) await feature.start?.(built.get(feature.slot.name), base);
    },
  };
}
