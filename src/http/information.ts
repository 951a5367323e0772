// The information document (GET / for an API client): the service's name and version, where its
// documentation and dashboard are, and the operations it offers. The operations are listed from the
// tRPC procedures' and the raw routes' `info` (informationEndpoints), not written a second time.
import type { Config } from '../config';
import { SERVICE_NAME, SERVICE_VERSION } from '../service-info';

/**
 * Where an operation is listed: its key (dots nest: `keys.list` is endpoints.keys.list), and what is
 * shown after its path (a query's parameters, "(CSV)"). `shownAs` lists the paths to show instead of the
 * mount path (one route serving /documents/:month/invoice.pdf and act.pdf); `listedFirst` puts it before
 * the entry's procedures (the mailed link before the call that sends a new one); `apart` lists it on its own
 * rather than joined to the other methods on its path (a top-level entry starts with one method).
 */
export type InformationEntry = string | { key: string; query?: string; shownAs?: string[]; listedFirst?: boolean; apart?: boolean };

export interface ListedOperation {
  method: string;
  /** `:name` for a parameter. */
  path: string;
  info?: InformationEntry;
}

export type InformationEndpoints = { [key: string]: string | InformationEndpoints };

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The `endpoints` object: each key's operations as "GET|PUT /path?query, DELETE /other", methods on one
 * path (and the same hint) joined with `|`, paths joined with `, ` in the order they come.
 */
export function informationEndpoints(operations: ListedOperation[]): InformationEndpoints {
  const entries = new Map<string, { shown: string; methods: Set<string> }[]>();
  for (const { method, path, info } of operations) {
    if (!info) continue;
    const entry = typeof info === 'string' ? { key: info } : info;
    const listed = entries.get(entry.key) ?? [];
    entries.set(entry.key, listed);
    const added: { shown: string; methods: Set<string> }[] = [];
    for (const shownPath of entry.shownAs ?? [path]) {
      const shown = `${shownPath}${entry.query ?? ''}`;
      const same = entry.apart ? undefined : listed.find((item) => item.shown === shown);
      if (same) same.methods.add(method);
      else added.push({ shown, methods: new Set([method]) });
    }
    if (entry.listedFirst) listed.unshift(...added);
    else listed.push(...added);
  }
  const endpoints: InformationEndpoints = {};
  for (const [key, listed] of entries) {
    const names = key.split('.');
    let into = endpoints;
    for (const name of names.slice(0, -1)) into = (into[name] ??= {}) as InformationEndpoints;
    into[names.at(-1)!] = listed
      .map(({ shown, methods }) => `${[...methods].sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)).join('|')} ${shown}`)
      .join(', ');
  }
  return endpoints;
}

export function informationDocument(config: Pick<Config, 'supportContact' | 'tokenPrice' | 'publicBaseUrl'>, endpoints: InformationEndpoints) {
  return {
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    documentation: '/docs',
    dashboard: '/app',
    // SUPPORT_CONTACT, for a login page or a client to show; null when the operator set none.
    supportContact: config.supportContact ?? null,
    endpoints,
    config: {
      tokenPrice: config.tokenPrice,
      // The OpenAI-compatible base URL clients use; the upstream Conduit calls is an internal address.
      upstreamProxy: `${config.publicBaseUrl}/v1`,
    },
  };
}
