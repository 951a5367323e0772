import { z } from 'zod';
import { companyRequisitesView } from '../http/requisites-input';
import type { Principal } from '../keys';
import { inject, router, userProcedure } from '../trpc/init';
import { organizationsSlot } from './api';
import {
  createInviteInput,
  inviteEmailInput,
  inviteTokenInput,
  organizationIdInput,
  organizationInput,
  removeMemberInput,
  ROLES,
  updateMemberInput,
  updateOrganizationInput,
} from './input';

/** What these procedures use of the features. */
const own = inject((use) => ({ orgs: use(organizationsSlot) }));

const TAGS = ['organizations'];
/**
 * These routes name their organisation in the path and check the member's role themselves; they accept the
 * dashboard's X-Conduit-Organization header (any role) and act for the person behind it.
 */
const ANY_ROLE = ROLES;
const personOf = (principal: Principal) => principal.organization?.actorId ?? principal.userId;
const JWT = 'Авторизация: токен входа (JWT) в Authorization: Bearer.';

const role = z.enum(ROLES).describe('Роль: owner — владелец, admin — администратор, developer — разработчик, accountant — бухгалтер');

const organizationView = z.object({
  id: z.string(),
  name: z.string(),
  role,
  balance: z.number(),
  currency: z.string(),
  requisites: companyRequisitesView,
  createdAt: z.string(),
});

const memberView = z.object({
  userId: z.string(),
  email: z.string(),
  role,
  spendLimit: z.number().nullable().describe('Лимит расходов участника в месяц; null — без лимита'),
  spentThisMonth: z.number().describe('Потрачено ключами участника в организации с начала месяца'),
  joinedAt: z.string(),
});

const inviteView = z.object({ email: z.string(), role, spendLimit: z.number().nullable(), expiresAt: z.string() });

const NOT_FOUND = 'Организации нет или вы не её участник';

export const organizationsRouter = router({
  create: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/organizations',
        tags: TAGS,
        summary: 'Создать организацию (создатель — её владелец)',
        description: `У организации свой баланс, ключи, использование и документы. ИНН — 10 или 12 цифр, КПП — 9 цифр у организации (у ИП пусто), ОГРН — 13 или 15 цифр; банковские реквизиты необязательны, но указываются вместе. ${JWT}`,
        successDescription: 'Организация создана',
      },
    })
    .input(organizationInput)
    .output(organizationView)
    .mutation(async ({ ctx, input }) => ctx.orgs.organizations.create(await ctx.orgs.person(personOf(ctx.principal)), input)),

  list: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: { method: 'GET', path: '/api/organizations', tags: TAGS, summary: 'Мои организации и роли в них', description: JWT },
    })
    .input(z.void())
    .output(z.object({ organizations: z.array(z.object({ id: z.string(), name: z.string(), role, balance: z.number(), currency: z.string() })) }))
    .query(({ ctx }) => ctx.orgs.organizations.list(personOf(ctx.principal))),

  get: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: { method: 'GET', path: '/api/organizations/{id}', tags: TAGS, summary: 'Организация: баланс и реквизиты (любой участник)', description: JWT },
      errors: { 404: NOT_FOUND },
    })
    .input(z.object({ id: organizationIdInput }))
    .output(organizationView)
    .query(({ ctx, input }) => ctx.orgs.organizations.get(input.id, personOf(ctx.principal))),

  update: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: { method: 'PUT', path: '/api/organizations/{id}', tags: TAGS, summary: 'Изменить название и реквизиты (владелец, бухгалтер)', description: JWT },
      errors: { 403: 'Роль не владелец и не бухгалтер', 404: NOT_FOUND },
    })
    .input(updateOrganizationInput)
    .output(organizationView)
    .mutation(async ({ ctx, input }) => {
      const { id, ...fields } = input;
      return ctx.orgs.organizations.update(id, await ctx.orgs.person(personOf(ctx.principal)), fields);
    }),

  members: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: {
        method: 'GET',
        path: '/api/organizations/{id}/members',
        tags: TAGS,
        summary: 'Участники и ожидающие приглашения (владелец, администратор)',
        description: JWT,
      },
      errors: { 403: 'Роль не владелец и не администратор', 404: NOT_FOUND },
    })
    .input(z.object({ id: organizationIdInput }))
    .output(
      z.object({
        members: z.array(memberView),
        invites: z.array(inviteView.extend({ invitedBy: z.string().nullable().describe('E-mail пригласившего; null — его учётной записи больше нет') })),
      }),
    )
    .query(({ ctx, input }) => ctx.orgs.members.list(input.id, personOf(ctx.principal))),

  invite: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/organizations/{id}/invites',
        tags: TAGS,
        summary: 'Пригласить по e-mail (владелец, администратор; администратор не приглашает владельцев)',
        description: `На адрес уходит ссылка <PUBLIC_BASE_URL>/app#/invite/<код>, она действует 7 дней; повторное приглашение того же адреса заменяет прежнее. ${JWT}`,
        successDescription: 'Приглашение отправлено',
      },
      errors: {
        403: 'Роль не владелец и не администратор, или администратор приглашает владельца',
        404: NOT_FOUND,
        409: 'Адрес уже участник организации',
        429: 'Слишком много приглашений за час',
      },
    })
    .input(createInviteInput)
    .output(inviteView)
    .mutation(async ({ ctx, input }) => {
      const { id, ...invite } = input;
      return ctx.orgs.invites.invite(id, await ctx.orgs.person(personOf(ctx.principal)), invite);
    }),

  withdrawInvite: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: {
        method: 'POST',
        path: '/api/organizations/{id}/invites/withdraw',
        tags: TAGS,
        summary: 'Отозвать приглашение (владелец, администратор)',
        description: JWT,
      },
      errors: { 403: 'Роль не владелец и не администратор', 404: 'Организации или приглашения на этот адрес нет' },
    })
    .input(z.object({ id: organizationIdInput, email: inviteEmailInput }))
    .output(z.object({ withdrawn: z.literal(true) }))
    .mutation(async ({ ctx, input }) => ctx.orgs.invites.withdraw(input.id, await ctx.orgs.person(personOf(ctx.principal)), input.email)),

  previewInvite: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: {
        method: 'POST',
        path: '/api/organizations/invites/preview',
        tags: TAGS,
        summary: 'Что за приглашение: организация, роль, адрес (код из ссылки — в теле запроса)',
        description: `Ничего не меняет. ${JWT}`,
      },
    })
    .input(inviteTokenInput)
    .output(z.object({ organization: z.object({ name: z.string() }), role, email: z.string(), expiresAt: z.string() }))
    .mutation(({ ctx, input }) => ctx.orgs.invites.preview(input.token)),

  acceptInvite: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: {
        method: 'POST',
        path: '/api/organizations/invites/accept',
        tags: TAGS,
        summary: 'Принять приглашение (только учётная запись с приглашённым адресом)',
        description: `Код из ссылки действует 7 дней и один раз. ${JWT}`,
      },
      errors: { 403: 'Приглашение отправлено на другой адрес (сообщение называет его)' },
    })
    .input(inviteTokenInput)
    .output(organizationView)
    .mutation(async ({ ctx, input }) => ctx.orgs.invites.accept(input.token, await ctx.orgs.person(personOf(ctx.principal)))),

  updateMember: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: {
        method: 'PATCH',
        path: '/api/organizations/{id}/members/{userId}',
        tags: TAGS,
        summary: 'Изменить роль или месячный лимит участника (владелец, администратор)',
        description: `spendLimit: null снимает лимит. Администратор не меняет владельцев и не назначает владельцем; последнего владельца понизить нельзя. ${JWT}`,
      },
      errors: { 403: 'Роль не владелец и не администратор, или администратор меняет владельца', 404: 'Организации или участника нет', 409: 'Последний владелец' },
    })
    .input(updateMemberInput)
    .output(memberView)
    .mutation(async ({ ctx, input }) =>
      ctx.orgs.members.update(input.id, await ctx.orgs.person(personOf(ctx.principal)), input.userId, { role: input.role, spendLimit: input.spendLimit }),
    ),

  removeMember: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: {
        method: 'POST',
        path: '/api/organizations/{id}/members/{userId}/remove',
        tags: TAGS,
        summary: 'Удалить участника или выйти самому; его ключи в организации отозвать или передать другому участнику',
        description: `keys: revoke — ключи участника перестают работать сразу; transfer — переходят участнику transferTo (владельцу, администратору или разработчику). Удаляют владелец и администратор (администратор не удаляет владельцев); выйти может любой участник, кроме последнего владельца. ${JWT}`,
      },
      errors: { 403: 'Роль не владелец и не администратор, или администратор удаляет владельца', 404: 'Организации или участника нет', 409: 'Последний владелец' },
    })
    .input(removeMemberInput)
    .output(z.object({ removed: z.literal(true), keysRevoked: z.number().int(), keysTransferred: z.number().int() }))
    .mutation(async ({ ctx, input }) =>
      ctx.orgs.members.remove(input.id, await ctx.orgs.person(personOf(ctx.principal)), input.userId, { keys: input.keys, transferTo: input.transferTo }),
    ),

  audit: userProcedure
    .use(own)
    .meta({
      organizationRoles: ANY_ROLE,
      openapi: {
        method: 'GET',
        path: '/api/organizations/{id}/audit',
        tags: TAGS,
        summary: 'Журнал организации, новые записи первыми (владелец, администратор)',
        description: JWT,
      },
      errors: { 403: 'Роль не владелец и не администратор', 404: NOT_FOUND },
    })
    .input(z.object({ id: organizationIdInput }))
    .output(z.object({ entries: z.array(z.object({ at: z.string(), actorEmail: z.string(), action: z.string(), detail: z.string() })) }))
    .query(({ ctx, input }) => ctx.orgs.organizations.journal(input.id, personOf(ctx.principal))),
});
