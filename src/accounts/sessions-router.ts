// The owner's sessions (issue 41 point 5): where the account is signed in, ending one or all but this one.
import { z } from 'zod';
import { bearerToken } from '../http/bearer';
import { inject, router, userProcedure } from '../trpc/init';
import { accountsSlot } from './api';
import { sessionIdInput } from './sessions-input';
import { accountsMessages } from './texts';

/** What these procedures use of the features. */
const own = inject((use) => ({ accounts: use(accountsSlot).accounts, sessions: use(accountsSlot).sessions }));

const sessionOutput = z.object({
  id: z.string(),
  device: z.string(),
  address: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  /** The session of the token that asked. */
  current: z.boolean(),
});

/** The caller's own session: its token says which (a userProcedure has checked the token already). */
const currentSession = async (ctx: { req: Request; accounts: { sessionOf(token: string): Promise<string | null> } }) => {
  const token = bearerToken(ctx.req.headers);
  return token ? ctx.accounts.sessionOf(token) : null;
};

export const sessionsRouter = router({
  list: userProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/auth/sessions',
        tags: ['auth'],
        summary: 'Сеансы входа в панель (JWT): устройство, адрес, когда начат и когда использован последний раз; текущий отмечен',
      },
    })
    .input(z.void())
    .output(z.object({ sessions: z.array(sessionOutput) }))
    .query(async ({ ctx }) => ({ sessions: await ctx.sessions.list(ctx.principal.userId, await currentSession(ctx)) })),

  end: userProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/auth/sessions/{id}/end',
        tags: ['auth'],
        summary: 'Завершить один сеанс (JWT): его токен перестаёт действовать сразу',
      },
      errors: { 404: 'Сеанса нет, он уже завершён или принадлежит другому пользователю' },
    })
    .input(sessionIdInput)
    .output(z.object({ message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.sessions.end(ctx.principal.userId, input.id);
      return { message: accountsMessages.sessionEnded };
    }),

  endOthers: userProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/auth/sessions/end-others',
        tags: ['auth'],
        summary: 'Завершить все сеансы, кроме этого (JWT)',
      },
    })
    .input(z.void())
    .output(z.object({ ended: z.number().int(), message: z.string() }))
    .mutation(async ({ ctx }) => {
      const ended = await ctx.sessions.endOthers(ctx.principal.userId, await currentSession(ctx));
      return { ended, message: accountsMessages.otherSessionsEnded(ended) };
    }),
});
