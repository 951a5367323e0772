// The page's data layer: TanStack Query over the typed tRPC client. Screens ask with
// `useQuery(trpc.x.y.queryOptions(input))` and change with `useMutation(trpc.x.y.mutationOptions())`,
// then invalidate what the change touched (`queryClient.invalidateQueries({ queryKey: trpc.x.pathKey() })`).
import { keepPreviousData, MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { useEffect, useState } from 'react';
import type { AppRouter } from '@server/trpc/router';
import { type ApiError, toApiError } from './api';
import { currentSession, endSession, onSessionChange, SESSION_EXPIRED } from './session';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** A 401 while signed in means the JWT expired (or was revoked with a new secret): the user logs in again. */
function onFailure(error: unknown): void {
  if (toApiError(error).type === 'unauthorized' && currentSession()) endSession(SESSION_EXPIRED);
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: onFailure }),
  mutationCache: new MutationCache({ onError: onFailure }),
  defaultOptions: {
    queries: {
      // The API's refusal is the answer to show (its Russian message), not a hiccup to hide behind retries.
      retry: false,
      // A screen asks when it opens and when what it shows was changed, as before the cache: a screen
      // opened again asks again rather than showing what it saw last time, and focus asks nothing.
      gcTime: 0,
      refetchOnWindowFocus: false,
      // New inputs (a page, a filter) keep the last answer on screen until theirs arrives, as the page always did.
      placeholderData: keepPreviousData,
    },
  },
});

// Whatever was asked as one user is not shown to the next: signing out forgets it, signing in as someone
// else (here or in another tab) starts afresh. A new token for the same user (a password change) only asks
// again what is on screen, keeping it shown meanwhile.
let signedInAs = currentSession()?.email;
onSessionChange((session) => {
  const previous = signedInAs;
  signedInAs = session?.email;
  if (!session) queryClient.clear();
  else if (session.email !== previous) void queryClient.resetQueries();
  else void queryClient.invalidateQueries();
});

/** The failure of a query or mutation as the page shows it (its message, type and refused fields), or undefined. */
export function apiError(error: unknown): ApiError | undefined {
  return error ? toApiError(error) : undefined;
}

/** A mutation's answer, or undefined when it failed: the failure is then in the mutation's `error` for the screen to show. */
export function answerOf<T>(running: Promise<T>): Promise<T | undefined> {
  return running.catch(() => undefined);
}

/**
 * A refusal a form found itself before any request (a field that does not check), shown where the API's
 * refusal of the same action would be: the mutation's error, or the form's own one when that is newer.
 */
export function useRefusal(mutation: { error: unknown; submittedAt: number; reset(): void }): [ApiError | undefined, (refusal: ApiError | undefined) => void] {
  const [refused, setRefused] = useState<ApiError | undefined>();
  // A request sent since replaces the form's own refusal. refuse() resets the mutation (submittedAt back to 0),
  // so every request after a refusal turns `submitted` true again.
  const submitted = mutation.submittedAt !== 0;
  useEffect(() => {
    if (submitted) setRefused(undefined);
  }, [submitted]);
  const refuse = (refusal: ApiError | undefined) => {
    mutation.reset();
    setRefused(refusal);
  };
  return [refused && !submitted ? refused : apiError(mutation.error), refuse];
}
