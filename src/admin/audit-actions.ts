// The operator audit's action names, apart from the log itself so the dashboard's filter form can import them.

/** Every action the log records; the audit's action filter takes these. */
export const AUDIT_ACTIONS = [
  'user.credit',
  'user.block',
  'user.unblock',
  'user.password_reset_sent',
  'user.sessions_ended',
  'key.revoke',
  'key.limit',
  'price.upsert',
  'price.delete',
  'price.import',
  'provider.create',
  'provider.update',
  'provider.delete',
  'route.upsert',
  'route.delete',
  'requisites.update',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
