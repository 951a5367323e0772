// The organisations feature's Russian texts: messages, the invitation mail, the audit log's wording.
import type { JsonObject } from '../admin';
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
  membersForbidden: 'Участниками управляют владельцы и администраторы организации',
  editForbidden: 'Реквизиты организации меняют владельцы и бухгалтеры',
  auditForbidden: 'Журнал организации видят владельцы и администраторы',
  adminCannotTouchOwner: 'Администратор не может менять владельцев, назначать владельцем или удалять владельца',
  lastOwner: 'В организации должен остаться хотя бы один владелец: сначала назначьте другого',
  accountantWithKeys: (count: number) =>
    `У бухгалтера не бывает API-ключей, а у участника их ${count}: сначала отзовите их в разделе «API-ключи» — ключи организации, которые он создал`,
  alreadyMember: (email: string) => `${email} уже участник организации`,
  inviteNotFound: 'Приглашение для этого адреса не найдено',
  inviteInvalid: 'Приглашение недействительно: срок истёк, оно уже принято или отозвано',
  inviteOtherAddress: (email: string) => `Приглашение отправлено на ${email}: войдите в учётную запись с этим адресом, чтобы принять его`,
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

const requisiteNames: Record<string, string> = {
  name: 'название',
  inn: 'ИНН',
  kpp: 'КПП',
  ogrn: 'ОГРН',
  address: 'адрес',
  bankName: 'банк',
  bik: 'БИК',
  account: 'расчётный счёт',
  correspondentAccount: 'корр. счёт',
};

const roleText = (role: unknown) => (typeof role === 'string' && role in roleNames ? roleNames[role as OrganizationRole] : '—');
const limitText = (limit: unknown) => (typeof limit === 'string' ? `лимит ${limit} в месяц` : 'без лимита');

/** One line of the organisation's journal as its owners and admins read it (the action's name is beside it). */
export function describeJournalRow(action: string, after: JsonObject, before: JsonObject | null): string {
  const email = typeof after.email === 'string' ? after.email : '';
  switch (action) {
    case 'organization.create':
      return `«${String(after.name ?? after.organization ?? '')}», ИНН ${String(after.inn ?? '')}`;
    case 'organization.update': {
      const changed = Object.keys(requisiteNames).filter((f) => before !== null && String(before[f] ?? '') !== String(after[f] ?? ''));
      return changed.length ? `изменено: ${changed.map((f) => requisiteNames[f]).join(', ')}` : 'без изменений';
    }
    case 'organization.invite':
      return `${email} — ${roleText(after.role)}, ${limitText(after.spendLimit)}`;
    case 'organization.invite_withdraw':
      return email;
    case 'organization.join':
      return `${email} — ${roleText(after.role)}`;
    case 'organization.member_update': {
      const parts = [];
      if (before && before.role !== after.role) parts.push(`роль: ${roleText(before.role)} → ${roleText(after.role)}`);
      if (before && before.spendLimit !== after.spendLimit) parts.push(`${limitText(before.spendLimit)} → ${limitText(after.spendLimit)}`);
      return `${email}${parts.length ? `: ${parts.join('; ')}` : ''}`;
    }
    case 'organization.member_remove': {
      const who = after.self === true ? `${email} вышел(а) из организации` : email;
      const keys =
        after.keys === 'transfer'
          ? `ключей передано ${String(after.transferToEmail ?? '')}: ${String(after.keysTransferred ?? 0)}`
          : `ключей отозвано: ${String(after.keysRevoked ?? 0)}`;
      return `${who}; ${keys}`;
    }
    default:
      return '';
  }
}
