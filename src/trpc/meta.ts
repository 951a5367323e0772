import type { AnyTRPCRouter } from '@trpc/server';
import type { ListedOperation } from '../http/information';
import type { ProcedureMeta } from './init';

/** Every procedure of a router with its meta, keyed by its dotted path. */
export function procedureMetas(router: AnyTRPCRouter): { path: string; meta: ProcedureMeta | undefined }[] {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta } }>;
  return Object.entries(procedures).map(([path, procedure]) => ({ path, meta: procedure._def.meta }));
}

/** The REST operations of a router's procedures, as the information document lists them. */
export function listedProcedures(router: AnyTRPCRouter): ListedOperation[] {
  return procedureMetas(router).flatMap(({ meta }) => {
    const openapi = meta?.openapi;
    if (!openapi || openapi.enabled === false) return [];
    return [{ method: openapi.method, path: openapi.path.replace(/\{(\w+)\}/g, ':$1'), info: meta.info }];
  });
}
