import { alertSettingsInput, alertSettingsOutput } from './input';
import { z } from 'zod';
import { ORGANIZATION_ACCESS } from '../keys';
import { router, userProcedure, inject } from '../trpc/init';
import { alertsSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ alerts: use(alertsSlot).alerts }));

const DESCRIPTION =
  'Письмо, когда баланс опускается ниже lowBalanceThreshold (одно на каждое пересечение: следующее — после того, как ' +
  'пополнение подняло баланс до порога или выше и он снова опустился), и когда API-ключ израсходовал 80 % своего лимита ' +
  '(одно на ключ за период и значение лимита). Те же события — POST-запросом на webhookUrl: JSON {id, type: "balance.low" | ' +
  '"key.limit_near", …, created}, заголовки X-Conduit-Timestamp: <t> и X-Conduit-Signature: t=<t>,v1=<hex>, где hex — ' +
  'HMAC-SHA256 секретом вебхука над строкой "<t>.<тело запроса>"; при ошибке получателя запрос повторяется с растущей паузой. ' +
  'Авторизация: токен входа (JWT) в Authorization: Bearer.';

export const alertsRouter = router({
  get: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.balance,
      openapi: { method: 'GET', path: '/api/account/alerts', tags: ['account'], summary: 'Уведомления о балансе и лимитах ключей', description: DESCRIPTION },
    })
    .input(z.void())
    .output(alertSettingsOutput)
    .query(({ ctx }) => ctx.alerts.settings.get(ctx.principal.userId)),

  update: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.balance,
      openapi: {
        method: 'PUT',
        path: '/api/account/alerts',
        tags: ['account'],
        summary: 'Настроить уведомления о балансе и лимитах ключей (поля, которых нет в теле, не меняются)',
        description: DESCRIPTION,
      },
    })
    .input(alertSettingsInput)
    .output(alertSettingsOutput)
    .mutation(({ ctx, input }) => ctx.alerts.settings.put(ctx.principal.userId, input)),
});
