// Every raw route (no tRPC procedure) the app mounts, in one order: the site's own first (health, the
// site root, the docs, the dashboard, metrics), then each feature's (its definition's `rawRoutes`) in the
// order of src/features.ts. app.ts mounts them, the OpenAPI document describes them in this order.
//
// Elysia prefers a static segment to a parameter and a parameter to `*` whatever the order; what depends
// on mounting order (the /api/* catch-all of the REST bridge after everything) stays in app.ts.
import { features } from './features';
import { healthRoute } from './http/health.route';
import type { InformationEndpoints } from './http/information';
import type { RawRoute } from './http/raw-route';
import { dashboardFilesRoute, dashboardPageRoute, docsAssetRoute, docsPageRoute, faviconRoute, faviconSvgRoute, siteRootRoute } from './http/site.route';
import { metricsRoute } from './metrics/metrics.route';
import type { AnyFeature, Base, Use } from './platform/feature';

/** The list as definitions of any API: here each feature's routes only meet its own API. */
const listed: readonly AnyFeature[] = features;

/** The site's routes: they use the base, and GET / the operations every route and procedure lists. */
export const siteRoutes = [
  healthRoute,
  siteRootRoute,
  metricsRoute,
  docsPageRoute,
  docsAssetRoute,
  dashboardPageRoute,
  dashboardFilesRoute,
  faviconRoute,
  faviconSvgRoute,
] as const;

type SiteDeps = Base & { informationEndpoints: InformationEndpoints };

/** The definitions, for the documents. */
export function rawRouteDefinitions(): readonly RawRoute<never>[] {
  return [...siteRoutes, ...listed.flatMap((feature) => feature.rawRoutes ?? [])] as readonly RawRoute<never>[];
}

export interface BoundRoute {
  route: RawRoute<never>;
  deps: never;
}

/** Each route with what its handler gets: the site's the base, a feature's its API over the base. */
export function bindRawRoutes(base: Base, use: Use, informationEndpoints: InformationEndpoints): BoundRoute[] {
  const siteDeps: SiteDeps = { ...base, informationEndpoints };
  const bound: { route: RawRoute<never>; deps: unknown }[] = siteRoutes.map((route) => ({ route: route as RawRoute<never>, deps: siteDeps }));
  for (const feature of listed) {
    if (!feature.rawRoutes?.length) continue;
    const deps = { ...base, ...use(feature.slot) };
    for (const route of feature.rawRoutes) bound.push({ route: route as RawRoute<never>, deps });
  }
  return bound as BoundRoute[];
}
