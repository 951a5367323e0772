// The authenticator's Russian refusals that no lower floor gives. Types and statuses are http/errors.ts's.
export const authMessages = {
  jwtRequired: 'Для этого действия нужен токен входа (JWT), а не API-ключ',
  adminOnly: 'Раздел доступен только администраторам',
} as const;

/** Acting in an organisation (X-Conduit-Organization, or an organisation's key): organizations/ names the roles. */
export const organizationAuthMessages = {
  headerInvalid: 'Заголовок X-Conduit-Organization: ожидается идентификатор организации',
  organizationNotFound: 'Организация не найдена',
  personalOnly: 'Это действие недоступно в организации: уберите заголовок X-Conduit-Organization, чтобы действовать от своего имени',
  roleForbidden: (role: string) => `Это действие недоступно вашей роли в организации (${role})`,
  keyWithoutMember: 'Создатель ключа больше не участник организации: ключ не даёт доступа к этому разделу',
} as const;
