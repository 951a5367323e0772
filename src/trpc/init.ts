// tRPC set-up: the request context, the error formatter (our types and Russian texts, no stack traces),
// and the procedure kinds by credential.
import { initTRPC } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { InformationEntry } from '../http/information';
import type { AdminPrincipal, Authenticator, Principal } from '../auth/authenticate';
import type { OrganizationRole } from '../keys';
import type { Config } from '../config';
import type { DatabaseHandle } from '../db/client';
import type { Use } from '../platform/feature';
import { AppError, errorBody, errorStatus } from '../http/errors';
import { errorMessages } from '../http/messages';
import { fieldNameOf } from '../http/field-labels';
import { findUnstorableText } from '../http/text';
import { trpcAppError, trpcCodeOf } from './errors';

export interface Context {
  req: Request;
  requestId: string;
  /** Where the request came from, under TRUST_PROXY (http/client-address.ts): what per-address limits count. */
  clientAddress: string;
  config: Config;
  database: DatabaseHandle;
  /** Who is calling (auth/authenticate.ts), for the procedure kinds below. */
  authenticator: Authenticator;
  /** The built features, for `inject` below; a handler reaches a feature only through what its router injects. */
  use: Use;
}

/** The credentials a procedure takes, as the OpenAPI document states them (set by each procedure kind below). */
export type Credential = 'jwt' | 'apiKey';

/**
 * OpenAPI meta plus the REST success status (201 for creations; 200 when absent), the credentials the
 * procedure kind takes, and the error statuses a procedure answers beyond those every route of its kind
 * can (src/openapi/document.ts adds those), each with what it means there.
 */
export type ProcedureMeta = OpenApiMeta & {
  /** Where the information document (GET /) lists its REST operation. */
  info?: InformationEntry;
  successStatus?: 200 | 201 | 202;
  credentials?: Credential[];
  /**
   * The roles that may run the procedure inside an organisation (X-Conduit-Organization with a JWT, or an
   * organisation's API key). Absent: the procedure is the person's own (2FA, password, sessions, agents…) and
   * refuses an organisation with 403 rather than act on it.
   */
  organizationRoles?: readonly OrganizationRole[];
  errors?: Partial<Record<400 | 401 | 402 | 403 | 404 | 409 | 413 | 429 | 500 | 502 | 503 | 504, string>>;
};

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Never put stack traces into error data, whatever NODE_ENV says.
    isDev: false,
    errorFormatter({ shape, error }) {
      const app = trpcAppError(error, shape.data.path);
      const trpcCode = trpcCodeOf(error);
      return {
        message: app.message,
        code: trpcCode === shape.data.code ? shape.code : TRPC_ERROR_CODES_BY_KEY[trpcCode],
        type: app.type,
        // `field`/`fields`: the input field(s) at fault by their English paths, so a form shows each
        // message under its field.
        data: {
          code: trpcCode,
          httpStatus: errorStatus(app),
          type: app.type,
          path: shape.data.path,
          field: app.param,
          fields: app.fields,
          // A code the REST body carries too (http/errors.ts dashboardCodes), e.g. login's totp_required.
          errorCode: errorBody(app).error.code ?? null,
        },
      };
    },
  });

export const router = t.router;

/**
 * Text PostgreSQL cannot store (NUL, lone surrogates) is refused here, once, for every procedure and
 * every field, REST and /trpc alike, before any handler or input schema sees it. It runs after the
 * credential check of each procedure kind, so an anonymous caller still learns only that it is one.
 */
const storableText = t.middleware(async ({ getRawInput, next, path }) => {
  const field = findUnstorableText(await getRawInput());
  if (field !== null) throw new AppError('invalid_request_error', errorMessages.unstorableText(fieldNameOf(field, path)), { param: field || null });
  return next();
});

export const publicProcedure = t.procedure.meta({ credentials: [] }).use(storableText);

/** Dashboard procedures: the caller must present a JWT. */
export const userProcedure = t.procedure
  .meta({ credentials: ['jwt'] })
  .use(async ({ ctx, meta, next }) => {
    const principal: Principal = await ctx.authenticator.jwtUser(ctx.req.headers, meta?.organizationRoles);
    return next({ ctx: { principal } });
  })
  .use(storableText);

/** Account views open to both credentials: a JWT or an API key. */
export const accountProcedure = t.procedure
  .meta({ credentials: ['jwt', 'apiKey'] })
  .use(async ({ ctx, meta, next }) => {
    const principal: Principal = await ctx.authenticator.jwtOrKey(ctx.req.headers, meta?.organizationRoles);
    return next({ ctx: { principal } });
  })
  .use(storableText);

/**
 * Operator procedures under /api/admin: the role is read from the database on every call, so taking it
 * away (or blocking the account) applies to tokens already issued. No JWT → 401; anyone else → 403.
 */
export const adminProcedure = t.procedure
  .meta({ credentials: ['jwt'] })
  .use(async ({ ctx, next }) => {
    const principal: AdminPrincipal = await ctx.authenticator.admin(ctx.req.headers);
    return next({ ctx: { principal } });
  })
  .use(storableText);

/**
 * Narrows procedures to what their handlers use of the features: `pick` names the features' parts and the
 * handlers see them as `ctx.<name>`. Picked once per composition (the features do not change while it runs).
 */
export function inject<Picked extends object>(pick: (use: Use) => Picked) {
  const picked = new WeakMap<Use, Picked>();
  return t.middleware(({ ctx, next }) => {
    let parts = picked.get(ctx.use);
    if (!parts) {
      parts = pick(ctx.use);
      picked.set(ctx.use, parts);
    }
    return next({ ctx: parts });
  });
}
