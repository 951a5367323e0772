// Russian words of the organisation screens, and which screens each member's role opens (the API's own
// access table in docs/organizations.md is the rule; this only keeps out of view what it would refuse).
import { ORGANIZATION_ACCESS, type OrganizationRole } from '@server/keys/types';

export const PERSONAL_LABEL = 'Личный';

export const roleLabels: Record<OrganizationRole, string> = {
  owner: 'Владелец',
  admin: 'Администратор',
  developer: 'Разработчик',
  accountant: 'Бухгалтер',
};

export const roleHints: Record<OrganizationRole, string> = {
  owner: 'всё, включая реквизиты и владельцев',
  admin: 'участники, ключи, лимиты, использование и баланс',
  developer: 'свои ключи в пределах лимита и их использование',
  accountant: 'баланс, выписка, документы, счета и пополнения; без ключей',
};

/** What a screen of the dashboard needs; the personal account has all of them and its own screens besides. */
export type Capability = 'keys' | 'usage' | 'balance' | 'money' | 'topups' | 'members' | 'requisites';

/** The server's role table (src/keys/types.ts) says who may; top-ups are money documents there. */
const ROLES_FOR: Record<Capability, readonly OrganizationRole[]> = { ...ORGANIZATION_ACCESS, topups: ORGANIZATION_ACCESS.money };

/** Whether the account in view (null: the person's own) lets its user do this. */
export function can(role: OrganizationRole | null, capability: Capability): boolean {
  return role === null || ROLES_FOR[capability].includes(role);
}

export const LEFT_ORGANIZATION_NOTICE = 'Вы больше не состоите в выбранной организации: показан личный аккаунт.';

export const auditActionLabels: Partial<Record<string, string>> = {
  'organization.create': 'Организация создана',
  'organization.update': 'Реквизиты изменены',
  'organization.invite': 'Приглашение отправлено',
  'organization.invite_withdraw': 'Приглашение отозвано',
  'organization.join': 'Участник присоединился',
  'organization.member_update': 'Роль или лимит изменены',
  'organization.member_remove': 'Участник удалён',
};

export const INVITE_SIGN_IN_NOTICE = 'Войдите или зарегистрируйтесь с адресом, на который пришло приглашение: после входа откроется приглашение.';
