// The API keys' Russian messages: the dashboard's key answers and the key check's refusals (the /v1 hot path and the
// dashboard's authenticator both give them, so they live on the key floor, below both). Types and statuses are http/errors.ts's.
export const keysMessages = {
  invalidApiKey: 'Недействительный API-ключ',
  revokedApiKey: 'API-ключ отозван',
  expiredApiKey: 'Срок действия API-ключа истёк',
  keyNotFound: 'Ключ не найден',
  tooManyKeys: (max: number) => `Достигнут лимит API-ключей (${max}); отзовите ненужный ключ`,
  keyRevoked: 'Ключ отозван',
  keyWarning: 'Сохраните ключ сейчас: он показывается только один раз и больше не будет доступен',
  keyScopeOwnUsage: 'Этот API-ключ видит только своё использование: для всего аккаунта войдите в панель (JWT) или создайте ключ с scope: "account"',
  accountBlocked: 'Учётная запись заблокирована: обратитесь в поддержку',
} as const;

/** The blocked-account message, naming the operator's SUPPORT_CONTACT when one is set. */
export const accountBlockedMessage = (supportContact: string | undefined) =>
  supportContact ? `Учётная запись заблокирована: обратитесь в поддержку — ${supportContact}` : keysMessages.accountBlocked;
