import type { AnyTRPCRouter } from '@trpc/server';
import type { ProcedureMeta } from './init';

/** Every procedure of a router with its meta, keyed by its dotted path. */
export function procedureMetas(router: AnyTRPCRouter): { path: string; meta: ProcedureMeta | undefined }[] {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta } }>;
  return Object.entries(procedures).map(([path, procedure]) => ({ path, meta: procedure._def.meta }));
}
