// tRPC set-up: the request context, the error formatter (our types and Russian texts, no stack traces),
// and the procedure kinds by credential.
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { AdminPrincipal, Principal } from '../auth/authenticate';
import type { Services } from '../services';
import { AppError, errorStatus, toAppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { findUnstorableText } from '../http/text';

export interface Context {
  services: Services;
  req: Request;
  requestId: string;
  /** Where the request came from, under TRUST_PROXY (http/client-address.ts): what per-address limits count. */
  clientAddress: string;
}

/** OpenAPI meta plus the REST success status (201 for creations; 200 when absent). */
export type ProcedureMeta = OpenApiMeta & { successStatus?: 200 | 201 | 202 };

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Never put stack traces into error data, whatever NODE_ENV says.
    isDev: false,
    errorFormatter({ shape, error }) {
      const app = toAppError(error);
      return {
        message: app.message,
        code: shape.code,
        type: app.type,
        data: { code: shape.data.code, httpStatus: errorStatus(app), type: app.type, path: shape.data.path },
      };
    },
  });

export const router = t.router;

/**
 * Text PostgreSQL cannot store (NUL, lone surrogates) is refused here, once, for every procedure and
 * every field, REST and /trpc alike, before any handler or input schema sees it. It runs after the
 * credential check of each procedure kind, so an anonymous caller still learns only that it is one.
 */
const storableText = t.middleware(async ({ getRawInput, next }) => {
  const field = findUnstorableText(await getRawInput());
  if (field !== null) throw new AppError('invalid_request_error', errorMessages.unstorableText(field));
  return next();
});

export const publicProcedure = t.procedure.use(storableText);

/** Dashboard procedures: the caller must present a JWT. */
export const userProcedure = t.procedure
  .use(async ({ ctx, next }) => {
    const principal: Principal = await ctx.services.authenticator.jwtUser(ctx.req.headers);
    return next({ ctx: { principal } });
  })
  .use(storableText);

/** Account views open to both credentials: a JWT or an API key. */
export const accountProcedure = t.procedure
  .use(async ({ ctx, next }) => {
    const principal: Principal = await ctx.services.authenticator.jwtOrKey(ctx.req.headers);
    return next({ ctx: { principal } });
  })
  .use(storableText);

/**
 * Operator procedures under /api/admin: the role is read from the database on every call, so taking it
 * away (or blocking the account) applies to tokens already issued. No JWT → 401; anyone else → 403.
 */
export const adminProcedure = t.procedure
  .use(async ({ ctx, next }) => {
    const principal: AdminPrincipal = await ctx.services.authenticator.admin(ctx.req.headers);
    return next({ ctx: { principal } });
  })
  .use(storableText);
