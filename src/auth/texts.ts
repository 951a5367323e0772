// The authenticator's Russian refusals that no lower floor gives. Types and statuses are http/errors.ts's.
export const authMessages = {
  jwtRequired: 'Для этого действия нужен токен входа (JWT), а не API-ключ',
  adminOnly: 'Раздел доступен только администраторам',
} as const;
