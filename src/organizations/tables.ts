// Organisations: a company as a customer. The organisation's money, keys, usage and documents hang off an
// account row of its own in `users` (kind 'organization': no password, no sign-in, an unmailable address),
// so the balance, leases, ledger, usage, statement and closing documents work for it as for a person. Its
// people are members with a role; a key in it belongs to the organisation and names its creator
// (api_keys.created_by).
import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from '../db/columns';
import { users } from '../accounts/tables';

/** The organisation; `id` is its account row in `users`. */
export const organizations = pgTable('organizations', {
  id: uuid('id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  /** Who created it (its first owner); null once that account is gone. */
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
});

/**
 * A person in an organisation with one role (keys/types.ts ORGANIZATION_ROLES). An organisation always keeps
 * at least one owner. `spendLimitNano` caps what the member's keys in the organisation spend per calendar
 * month (UTC, as a key's monthly limit); the budget columns are to it what api_keys' are to a key's limit.
 */
export const organizationMembers = pgTable(
  'organization_members',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').notNull(),
    /** Per calendar month (UTC); null: no limit of the member's own, only the organisation's balance. */
    spendLimitNano: bigint('spend_limit_nano', { mode: 'bigint' }),
    /** The part of this month's limit no instance has claimed yet (like api_keys.budget_nano). */
    budgetNano: bigint('budget_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /** Start of the month the budget belongs to; a later month starts with the whole limit. */
    budgetPeriodStart: timestamp('budget_period_start', { withTimezone: true, mode: 'date' }),
    /** When the limit last changed (null: as set when the member joined). */
    limitChangedAt: timestamp('limit_changed_at', { withTimezone: true, mode: 'date' }),
    /** The month (its start) whose limit the member and the admins were told was reached: once a month. */
    limitNotifiedPeriod: timestamp('limit_notified_period', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userId], name: 'organization_members_pk' }),
    index('organization_members_user_idx').on(t.userId),
    check('organization_members_role_known', sql`${t.role} in ('owner', 'admin', 'developer', 'accountant')`),
    check('organization_members_limit_not_negative', sql`${t.spendLimitNano} is null or ${t.spendLimitNano} >= 0`),
  ],
);

/**
 * An invitation mailed to an address: a one-time link valid 7 days. Only the SHA-256 of the mailed token is
 * kept; the row is deleted when the invitation is accepted or withdrawn.
 */
export const organizationInvites = pgTable(
  'organization_invites',
  {
    tokenHash: text('token_hash').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').notNull(),
    spendLimitNano: bigint('spend_limit_nano', { mode: 'bigint' }),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('organization_invites_organization_idx').on(t.organizationId, t.createdAt),
    index('organization_invites_expiry_idx').on(t.expiresAt),
    check('organization_invites_role_known', sql`${t.role} in ('owner', 'admin', 'developer', 'accountant')`),
  ],
);
