// The operator audit's vocabulary (its action names, the JSON a row's before/after hold), apart from the log
// itself so the dashboard's filter form and the Russian view (audit-view.ts) import them without the log.

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
  'provider.probe',
  'route.upsert',
  'route.delete',
  'requisites.update',
  'documents.issue',
  'documents.correct',
  'invoice.mark_paid',
  'invoice.cancel',
  'bank_statement.import',
  'bank_payment.credit',
  'bank_payment.assign',
  'bank_payment.ignore',
  // Promo campaigns (promotions/).
  'promo_campaign.create',
  'promo_campaign.stop',
  // An organisation's own journal (organizations/): done by its members, read by its owners and admins too.
  'organization.create',
  'organization.update',
  'organization.invite',
  'organization.invite_withdraw',
  'organization.join',
  'organization.member_update',
  'organization.member_remove',
  // Price groups (issue 45): the groups, their own prices, and accounts moved between them.
  'price_group.create',
  'price_group.update',
  'price_group.delete',
  'price_group.price_upsert',
  'price_group.price_delete',
  'user.price_group',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What JSON can hold. Money goes in as decimal strings: a bigint would not serialise, a float would round. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
