// The operators' audit trail.
import { bigint, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from '../db/columns';
import { users } from '../accounts/tables';

/** Every operator action: who did what to which record, with the record before and after. */
export const adminAudit = pgTable(
  'admin_audit',
  {
    id: bigint('id', { mode: 'bigint' }).primaryKey().generatedAlwaysAsIdentity(),
    adminId: uuid('admin_id').references(() => users.id, { onDelete: 'set null' }),
    adminEmail: text('admin_email').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: createdAt(),
  },
  (t) => [
    index('admin_audit_created_idx').on(t.createdAt, t.id),
    // The audit's filters: one action, one account as target or as operator, each newest first.
    index('admin_audit_action_idx').on(t.action, t.createdAt, t.id),
    index('admin_audit_target_idx').on(t.targetId, t.createdAt, t.id),
    index('admin_audit_admin_idx').on(t.adminId, t.createdAt, t.id),
  ],
);
