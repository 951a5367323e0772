// The organisations feature's Russian texts: messages, the invitation mail, the audit log's wording.
import type { OrganizationRole } from '../keys';

export const roleNames: Record<OrganizationRole, string> = {
  owner: 'владелец',
  admin: 'администратор',
  developer: 'разработчик',
  accountant: 'бухгалтер',
};

export const organizationsMessages = {
  nameInvalid: 'название организации: от 1 до 300 символов',
  innInvalid: 'ИНН: 10 цифр у организации или 12 у ИП',
  kppInvalid: 'КПП: 9 цифр (у ИП с ИНН из 12 цифр оставьте пустым)',
  kppRequired: 'КПП: 9 цифр — у организации (ИНН из 10 цифр) он есть',
  kppOfSoleProprietor: 'у ИП (ИНН из 12 цифр) нет КПП — оставьте поле пустым',
  ogrnInvalid: 'ОГРН: 13 цифр у организации или 15 (ОГРНИП) у ИП',
  addressInvalid: 'укажите юридический адрес (до 500 символов)',
  bankNameInvalid: 'название банка: до 300 символов',
  bikInvalid: 'БИК: 9 цифр',
  accountInvalid: 'расчётный счёт: 20 цифр',
  correspondentAccountInvalid: 'корреспондентский счёт: 20 цифр',
  bankIncomplete: 'банковские реквизиты указываются вместе: банк, БИК, расчётный и корреспондентский счёт',
  emailInvalid: 'укажите e-mail, например user@example.com',
  roleInvalid: 'роль: owner, admin, developer или accountant',
  spendLimitInvalid: 'лимит расходов: неотрицательное число или null — без лимита',
  tokenInvalid: 'код из ссылки приглашения не распознан',
  keysChoiceInvalid: 'keys: revoke — отозвать ключи участника, transfer — передать их другому участнику',
  idInvalid: 'идентификатор организации не распознан',
  userIdInvalid: 'идентификатор участника не распознан',

  organizationNotFound: 'Организация не найдена',
  memberNotFound: 'Участник не найден',
  headerInvalid: 'Заголовок X-Conduit-Organization: ожидается идентификатор организации',
  notAvailableInOrganization: 'Это действие недоступно в организации: переключитесь на личный аккаунт',
  roleForbidden: (role: OrganizationRole) => `Это действие недоступно роли «${roleNames[role]}» в организации`,
  keyWithoutMember: 'Создатель ключа больше не участник организации: действие недоступно',
  membersForbidden: 'Участниками управляют владельцы и администраторы организации',
  editForbidden: 'Реквизиты организации меняют владельцы и бухгалтеры',
  auditForbidden: 'Журнал организации видят владельцы и администраторы',
  adminCannotTouchOwner: 'Администратор не может менять владельцев, назначать владельцем или удалять владельца',
  lastOwner: 'В организации должен остаться хотя бы один владелец: сначала назначьте другого',
  alreadyMember: (email: string) => `${email} уже участник организации`,
  inviteNotFound: 'Приглашение для этого адреса не найдено',
  inviteInvalid: 'Приглашение недействительно: срок истёк, оно уже принято или отозвано',
  inviteOtherAddress: (email: string) =>
    `Приглашение отправлено на ${email}: войдите в учётную запись с этим адресом, чтобы принять его`,
  tooManyInvites: 'Слишком много приглашений за час: попробуйте позже',
  mailUnavailable: 'Отправка писем не настроена: приглашение не может быть отправлено',
  mailFailed: 'Письмо с приглашением не отправлено: попробуйте через минуту',
  transferTargetRequired: 'Укажите участника, которому передать ключи (transferTo)',
  transferTargetInvalid: 'Ключи можно передать только другому участнику организации с ролью владельца, администратора или разработчика',
  tooManyOrganizations: (max: number) => `Можно создать не больше ${max} организаций`,
} as const;

export const inviteMail = {
  subject: (organization: string) => `Приглашение в организацию «${organization}» в Conduit`,
  text: (organization: string, role: OrganizationRole, inviter: string | null, link: string, days: number) =>
    [
      `${inviter ?? 'Участник организации'} приглашает вас в организацию «${organization}» в Conduit с ролью «${roleNames[role]}».`,
      '',
      `Откройте ссылку и нажмите «Принять приглашение» (ссылка действует ${days} дней):`,
      link,
      '',
      'Принять приглашение можно, войдя в учётную запись Conduit с этим адресом e-mail.',
      'Если вы не ждали этого письма, просто не открывайте ссылку.',
    ].join('\n'),
};

/** The organisation's journal, line by line as its owners and admins read it. */
export const auditTexts = {
  'organization.create': 'Организация создана',
  'organization.update': 'Реквизиты изменены',
  'organization.invite': 'Приглашение отправлено',
  'organization.invite_withdraw': 'Приглашение отозвано',
  'organization.join': 'Участник принял приглашение',
  'organization.member_update': 'Участник изменён',
  'organization.member_remove': 'Участник удалён',
} as const;
