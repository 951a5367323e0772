// The route a request is counted under: the template of the route that serves it ("/v1/responses/:id"),
// whatever its status, or "unmatched". A label taken from the raw path grows with every id a client
// invents (3,000 unauthenticated /v1/responses/<id> made 3,000 series); templates are a fixed set.

export interface RouteTemplate {
  /** GET, POST, …, or ALL for a route that takes any method. */
  method: string;
  /** Elysia's form: static segments, `:name` for one segment, a final `*` for the rest. */
  path: string;
}

interface Compiled {
  method: string;
  template: string;
  segments: string[];
  /** Ends in `*`: matches any number of further segments. */
  rest: boolean;
  /** How many segments are static: the more, the more specific (a static route beats a parameter). */
  statics: number;
}

const UNMATCHED = 'unmatched';

export function createRouteMatcher(templates: readonly RouteTemplate[]) {
  const compiled: Compiled[] = templates.map(({ method, path }) => {
    const segments = path.split('/').slice(1);
    const rest = segments.at(-1) === '*';
    if (rest) segments.pop();
    return {
      method: method.toUpperCase(),
      template: path,
      segments,
      rest,
      statics: segments.filter((s) => !s.startsWith(':')).length,
    };
  });

  function fits(route: Compiled, method: string): boolean {
    // A preflight is counted under the route it asks about; HEAD is served by GET's route.
    return route.method === 'ALL' || route.method === method || method === 'OPTIONS' || (method === 'HEAD' && route.method === 'GET');
  }

  /** The template serving `method path`, or "unmatched". */
  return function routeOf(method: string, path: string): string {
    const parts = path.split('/').slice(1);
    let best: Compiled | undefined;
    for (const route of compiled) {
      const n = route.segments.length;
      if (route.rest ? parts.length <= n : parts.length !== n) continue;
      if (!fits(route, method)) continue;
      let i = 0;
      for (; i < n; i++) {
        const segment = route.segments[i]!;
        if (segment.startsWith(':') ? parts[i] === '' : segment !== parts[i]) break;
      }
      if (i < n) continue;
      if (!best || route.statics > best.statics || (route.statics === best.statics && !route.rest && best.rest)) best = route;
    }
    return best?.template ?? UNMATCHED;
  };
}

export type RouteMatcher = ReturnType<typeof createRouteMatcher>;
