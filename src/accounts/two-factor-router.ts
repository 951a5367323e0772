// Two-factor login (accounts/two-factor.ts): set up, switch on with a first code, switch off, status.
import { z } from 'zod';
import { accountsMessages } from './texts';
import { router, userProcedure, inject } from '../trpc/init';
import { twoFactorCodeInput } from './auth-input';
import { accountsSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ twoFactor: use(accountsSlot).twoFactor }));

export const twoFactorRouter = router({
  status: userProcedure
    .use(own)
    .meta({ info: 'twoFactor', openapi: { method: 'GET', path: '/api/auth/2fa', tags: ['auth'], summary: 'Включён ли двухфакторный вход (JWT)' } })
    .input(z.void())
    .output(z.object({ enabled: z.boolean() }))
    .query(({ ctx }) => ctx.twoFactor.status(ctx.principal.userId)),

  setup: userProcedure
    .use(own)
    .meta({
      info: 'twoFactor',
      openapi: {
        method: 'POST',
        path: '/api/auth/2fa/setup',
        tags: ['auth'],
        summary: 'Начать настройку двухфакторного входа (TOTP): секрет, otpauth-ссылка и QR-код (SVG). Включается после подтверждения первым кодом',
      },
      errors: { 409: 'Двухфакторный вход уже включён, или адрес из ADMIN_EMAILS ещё не подтверждён по ссылке из письма' },
    })
    .input(z.void())
    .output(z.object({ secret: z.string(), otpauthUrl: z.string(), qrSvg: z.string() }))
    .mutation(({ ctx }) => ctx.twoFactor.setup(ctx.principal.userId)),

  enable: userProcedure
    .use(own)
    .meta({
      info: 'twoFactor',
      openapi: {
        method: 'POST',
        path: '/api/auth/2fa/enable',
        tags: ['auth'],
        summary: 'Включить двухфакторный вход первым кодом из приложения; ответ — 10 одноразовых кодов восстановления (показываются один раз)',
      },
      errors: {
        409: 'Двухфакторный вход уже включён, или адрес из ADMIN_EMAILS ещё не подтверждён по ссылке из письма',
        429: 'Слишком много неверных кодов (Retry-After)',
      },
    })
    .input(twoFactorCodeInput)
    .output(z.object({ enabled: z.literal(true), recoveryCodes: z.array(z.string()) }))
    .mutation(async ({ ctx, input }) => ({ enabled: true as const, ...(await ctx.twoFactor.enable(ctx.principal.userId, input.code)) })),

  disable: userProcedure
    .use(own)
    .meta({
      info: 'twoFactor',
      openapi: {
        method: 'POST',
        path: '/api/auth/2fa/disable',
        tags: ['auth'],
        summary: 'Отключить двухфакторный вход текущим кодом из приложения или кодом восстановления',
      },
      errors: { 429: 'Слишком много неверных кодов (Retry-After)' },
    })
    .input(twoFactorCodeInput)
    .output(z.object({ enabled: z.literal(false), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.twoFactor.disable(ctx.principal.userId, input.code);
      return { enabled: false as const, message: accountsMessages.totpDisabled };
    }),
});
