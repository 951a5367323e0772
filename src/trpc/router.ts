// The root router: every feature's routers (src/features.ts), under the keys the typed client and the
// REST paths know them by.
import type { AnyRouter } from '@trpc/server';
import { features } from '../features';
import { router } from './init';

type FeatureList = typeof features;
type RoutersOf<Feature> = Feature extends { routers?: infer Routers } ? (Routers extends Record<string, AnyRouter> ? Routers : never) : never;
type Merged<List extends readonly unknown[]> = List extends readonly [infer First, ...infer Rest] ? RoutersOf<First> & Merged<Rest> : unknown;

function collectRouters(list: FeatureList): Merged<FeatureList> {
  const routers: Record<string, AnyRouter> = {};
  for (const feature of list) {
    for (const [key, value] of Object.entries(feature.routers ?? {})) {
      if (key in routers) throw new Error(`two features serve the router "${key}"`);
      routers[key] = value;
    }
  }
  return routers as Merged<FeatureList>;
}

export const appRouter = router(collectRouters(features));

/** The typed client's view of the dashboard API. */
export type AppRouter = typeof appRouter;
