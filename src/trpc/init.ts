// tRPC set-up: the request context, the error formatter (our types and Russian texts, no stack traces),
// and the procedure kinds by credential.
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Principal } from '../auth/authenticate';
import type { Services } from '../services';
import { errorStatus, toAppError } from '../http/errors';

export interface Context {
  services: Services;
  req: Request;
  requestId: string;
  /**
   * A procedure may set the HTTP status of its REST answer (201 for creations). A holder object,
   * because middlewares hand procedures a copy of the context, not the context itself.
   */
  response: { status?: number };
}

const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta>()
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
export const publicProcedure = t.procedure;

/** Dashboard procedures: the caller must present a JWT. */
export const userProcedure = t.procedure.use(async ({ ctx, next }) => {
  const principal: Principal = await ctx.services.authenticator.jwtUser(ctx.req.headers);
  return next({ ctx: { principal } });
});

/** Account views open to both credentials: a JWT or an API key. */
export const accountProcedure = t.procedure.use(async ({ ctx, next }) => {
  const principal: Principal = await ctx.services.authenticator.jwtOrKey(ctx.req.headers);
  return next({ ctx: { principal } });
});
