// The page's only way to the server: the typed tRPC client over /trpc. Its types come from the server's
// AppRouter, so a change there that the page does not follow fails `npm run typecheck` and the build.
import { createTRPCClient, httpBatchLink, splitLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@server/trpc/router';
import { activeOrganization, actsForOrganization, ORGANIZATION_HEADER } from './organization';
import { currentSession } from './session';

export type Outputs = inferRouterOutputs<AppRouter>;
export type Inputs = inferRouterInputs<AppRouter>;

/**
 * The most calls the server runs from one /trpc batch (MAX_BATCH_CALLS in src/trpc/batch-policy.ts); a
 * screen that asks for more at once is sent in several batches rather than refused with a 400.
 */
const MAX_BATCH_CALLS = 10;

function authorization(): Record<string, string> {
  const session = currentSession();
  return session ? { authorization: `Bearer ${session.token}` } : {};
}

/**
 * Calls that may act on an organisation go in batches of their own carrying `X-Conduit-Organization` while
 * one is chosen (app/organization.ts); the person's own calls (the session, agents, dialogues) never carry it.
 */
export const api = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => actsForOrganization(op.path),
      true: httpBatchLink({
        url: '/trpc',
        maxItems: MAX_BATCH_CALLS,
        headers() {
          const organization = activeOrganization();
          return organization ? { ...authorization(), [ORGANIZATION_HEADER]: organization.id } : authorization();
        },
      }),
      false: httpBatchLink({ url: '/trpc', maxItems: MAX_BATCH_CALLS, headers: authorization }),
    }),
  ],
});

/**
 * An API failure as the page shows it: the server's Russian message and its error type, and for a
 * refused form each field at fault (its English path) with its own message, shown under that field.
 */
export interface ApiError {
  message: string;
  type: string;
  fields?: Record<string, string>;
  /** A finer machine code where the server gives one (login's totp_required, totp_invalid). */
  code?: string;
}

const NETWORK_ERROR = 'Не удалось связаться с сервером: проверьте подключение и повторите';

export function toApiError(error: unknown): ApiError {
  if (error instanceof TRPCClientError) {
    const data = error.data as { type?: unknown; fields?: unknown; errorCode?: unknown } | undefined;
    if (data && typeof data.type === 'string') {
      const fields = data.fields && typeof data.fields === 'object' ? (data.fields as Record<string, string>) : undefined;
      const code = typeof data.errorCode === 'string' ? data.errorCode : undefined;
      return { message: error.message, type: data.type, ...(fields ? { fields } : {}), ...(code ? { code } : {}) };
    }
    // No error body from our server: the request did not reach it, or something in between answered.
    return { message: NETWORK_ERROR, type: 'network_error' };
  }
  return { message: NETWORK_ERROR, type: 'network_error' };
}
