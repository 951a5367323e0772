// The service's top-up settings (enabled, currency, limits), which several features' screens show.
import { useQuery } from '@tanstack/react-query';
import type { Outputs } from '../app/api';
import { useTRPC } from '../app/trpc';

export type BillingConfig = Outputs['billing']['config'];

/** Public and fixed while the server runs, so asked once per page load; a failed answer is asked again by the next screen. */
export function useBillingConfig() {
  const trpc = useTRPC();
  return useQuery(trpc.billing.config.queryOptions(undefined, { staleTime: Infinity, gcTime: Infinity }));
}
