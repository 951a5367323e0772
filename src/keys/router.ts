import { z } from 'zod';
import { keysMessages } from './texts';
import { LIMIT_RESETS } from './limits';
import type { KeyLimits, KeyOwner } from './service';
import { ORGANIZATION_ACCESS, type Principal } from './types';
import { unitsToNano } from '../money';
import { router, userProcedure, inject } from '../trpc/init';
import { createKeyInput, keyCacheInput, keyScopeInput, updateKeyInput } from './input';
import { keysSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ keys: use(keysSlot).keys }));

const listedKey = z.object({
  id: z.string(),
  name: z.string(),
  keyPrefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  isActive: z.boolean(),
  spendLimit: z.number().nullable().describe('Лимит расходов ключа за период в валюте баланса; null — без лимита'),
  limitReset: z.enum(LIMIT_RESETS).describe('Когда лимит начинается заново (UTC): none, day, week, month'),
  expiresAt: z.string().nullable().describe('Когда ключ перестанет действовать; null — бессрочно'),
  expired: z.boolean(),
  spentThisPeriod: z.number().describe('Потрачено ключом с начала текущего периода'),
  limitReached: z.boolean().describe('Лимит периода израсходован: запросы с ключом получают 402 до начала следующего периода или до повышения лимита'),
  periodStart: z.string(),
  scope: keyScopeInput,
  cache: keyCacheInput,
  rpm: z.number().int().nullable().describe('Запросов в минуту для ключа; null — по умолчанию сервиса'),
  tpm: z.number().int().nullable().describe('Токенов в минуту для ключа; null — по умолчанию сервиса'),
  rpd: z.number().int().nullable().describe('Запросов в сутки (UTC) для ключа; null — по умолчанию сервиса'),
  createdBy: z.string().nullable().describe('В организации: участник, создавший ключ (ключ принадлежит организации); null — личный ключ'),
});

/** In an organisation (X-Conduit-Organization): owners and admins reach all its keys, a developer only their own. */
const KEY_ROLES = ORGANIZATION_ACCESS.keys;
function ownerOf(principal: Principal): KeyOwner {
  const organization = principal.organization;
  if (organization?.role === 'developer' && organization.actorId) return { userId: principal.userId, onlyCreatedBy: organization.actorId };
  return { userId: principal.userId };
}

/** The API's units → the service's: nano-units and dates; absent stays absent, null stays null. */
function limitsOf(
  input: { spendLimit?: number | null; limitReset?: KeyLimits['limitReset']; expiresAt?: string | null } & Pick<KeyLimits, 'rpm' | 'tpm' | 'rpd'>,
): KeyLimits {
  return {
    rpm: input.rpm,
    tpm: input.tpm,
    rpd: input.rpd,
    spendLimitNano: input.spendLimit === undefined ? undefined : input.spendLimit === null ? null : unitsToNano(input.spendLimit),
    limitReset: input.limitReset,
    expiresAt: input.expiresAt === undefined ? undefined : input.expiresAt === null ? null : new Date(input.expiresAt),
  };
}

export const keysRouter = router({
  list: userProcedure
    .use(own)
    .meta({ organizationRoles: KEY_ROLES, info: 'keys.list', openapi: { method: 'GET', path: '/api/keys', tags: ['keys'], summary: 'Список API-ключей' } })
    .input(z.void())
    .output(z.object({ keys: z.array(listedKey), count: z.number().int() }))
    .query(({ ctx }) => ctx.keys.list(ownerOf(ctx.principal))),

  create: userProcedure
    .use(own)
    .meta({
      organizationRoles: KEY_ROLES,
      info: 'keys.create',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/keys',
        tags: ['keys'],
        summary: 'Создать API-ключ (полное значение показывается один раз)',
        description:
          'Создаёт API-ключ для /v1; полное значение ключа есть только в этом ответе. Ключ видит в /api/usage только своё ' +
          'использование (scope: "key", по умолчанию); scope: "account" открывает ключу использование всего аккаунта. ' +
          'cache: "on" или "any" включает ключу кэш ответов /v1/chat/completions (README, «Кэш ответов»). ' +
          'Авторизация: токен входа (JWT) в Authorization: Bearer.',
        successDescription: 'Ключ создан',
      },
    })
    .input(createKeyInput)
    .output(listedKey.extend({ key: z.string(), warning: z.string() }))
    .mutation(({ ctx, input }) =>
      ctx.keys.create(ctx.principal.userId, input.name, limitsOf(input), input.scope, input.cache, ctx.principal.organization?.actorId ?? null),
    ),

  update: userProcedure
    .use(own)
    .meta({
      organizationRoles: KEY_ROLES,
      info: 'keyUpdate',
      openapi: {
        method: 'PATCH',
        path: '/api/keys/{id}',
        tags: ['keys'],
        summary: 'Изменить название, лимит расходов, период лимита, срок действия, лимиты запросов и токенов (rpm, tpm, rpd) или кэш ответов ключа',
      },
    })
    .input(updateKeyInput)
    .output(listedKey)
    .mutation(({ ctx, input }) => ctx.keys.update(ownerOf(ctx.principal), input.id, { name: input.name, cache: input.cache, ...limitsOf(input) })),

  revoke: userProcedure
    .use(own)
    .meta({ organizationRoles: KEY_ROLES, info: 'keys.delete', openapi: { method: 'DELETE', path: '/api/keys/{id}', tags: ['keys'], summary: 'Отозвать API-ключ' } })
    .input(z.object({ id: z.string().max(100) }))
    .output(z.object({ success: z.boolean(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.keys.revoke(ownerOf(ctx.principal), input.id);
      return { success: true, message: keysMessages.keyRevoked };
    }),
});
