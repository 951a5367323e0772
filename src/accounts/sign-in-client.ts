// Where a sign-in comes from, as the procedures that hand out a session read it off the request.
import type { SignInClient } from './service';

/** The User-Agent is kept short: it only names a browser and a system, and the header is the client's to fill. */
export const signInClient = (ctx: { req: Request; clientAddress: string }): SignInClient => ({
  address: ctx.clientAddress,
  userAgent: ctx.req.headers.get('user-agent')?.slice(0, 512) ?? null,
});
