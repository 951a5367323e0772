// Accounts: users, their sign-in (e-mail verification, password resets, login throttling, second factor,
// e-mail changes).
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../db/columns';
import { priceGroups } from '../pricing/tables';

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull().unique('users_email_unique'),
    passwordHash: text('password_hash').notNull(),
    role: text('role').notNull().default('user'),
    /**
     * person | organization. An organisation's account row (organizations/tables.ts) holds its balance and
     * keys; it has no password, cannot sign in, and its address (@organizations.invalid) is never mailed.
     */
    kind: text('kind').notNull().default('person'),
    balanceNano: bigint('balance_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /**
     * Unused since login throttling moved to throttle_counters; kept so that an instance of the previous
     * release, still running during a rolling deploy, can log users in. Drop in a later release.
     */
    failedLogins: integer('failed_logins').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    /** When the user opened the link mailed to the address (null: never verified). */
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, mode: 'date' }),
    /** Set by an operator: the user cannot log in and the user's keys are refused on /v1. */
    blockedAt: timestamp('blocked_at', { withTimezone: true, mode: 'date' }),
    /**
     * Dashboard tokens carry the generation they were issued in; raising it (password reset or change,
     * logout-all, a block) ends every token issued before. A counter, not a time: JWT times have
     * second resolution, and a token from the same second as the cut must neither slip through nor
     * the fresh one be refused.
     */
    sessionsGeneration: integer('sessions_generation').notNull().default(0),
    /**
     * The price group the account pays by (pricing/tables.ts); new accounts get the default group at their
     * insert. A group that still has accounts cannot be deleted.
     */
    priceGroup: text('price_group')
      .notNull()
      .default('base')
      .references(() => priceGroups.name, { onUpdate: 'cascade', onDelete: 'restrict' }),
    createdAt: createdAt(),
  },
  (t) => [
    check('users_balance_not_negative', sql`${t.balanceNano} >= 0`),
    check('users_role_known', sql`${t.role} in ('user', 'admin')`),
    check('users_kind_known', sql`${t.kind} in ('person', 'organization')`),
    index('users_price_group_idx').on(t.priceGroup),
  ],
);

/**
 * One-time links that verify a user's e-mail (and credit the bonus when REQUIRE_EMAIL_VERIFICATION is on).
 * Only the SHA-256 of the random token is kept; a row is deleted when its link is used. `email` is the
 * address the link was mailed to: it verifies that address only, never one the account has since taken.
 */
export const emailVerifications = pgTable(
  'email_verifications',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('email_verifications_user_idx').on(t.userId), index('email_verifications_expiry_idx').on(t.expiresAt)],
);

/**
 * Password-reset links: only the SHA-256 of the mailed token is kept; one-time, 1 h, one live link per user,
 * usable only while the account still has the address (`email`) it was mailed to.
 */
export const passwordResets = pgTable(
  'password_resets',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('password_resets_user_idx').on(t.userId), index('password_resets_expiry_idx').on(t.expiresAt)],
);

/**
 * Counters of the abuse limits, in the database so every instance sees the same count: registrations per
 * client address, login attempts per address and per e-mail, verification mails per user. `scope` says
 * which limit; `key` is an address, a user id or the SHA-256 of an e-mail (never the e-mail itself).
 */
export const throttleCounters = pgTable(
  'throttle_counters',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    hits: integer('hits').notNull().default(0),
    windowStartedAt: timestamp('window_started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Growing delays: no attempt is let through before this moment. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ name: 'throttle_counters_pk', columns: [t.scope, t.key] }), index('throttle_counters_updated_idx').on(t.updatedAt)],
);

/**
 * A user's TOTP second factor (RFC 6238). The secret is sealed with the secret box like integration
 * secrets; `enabledAt` null means set up but not yet confirmed with a first code (login ignores it).
 * `lastUsedStep` is the 30-second step of the last code accepted, so a code cannot be used twice.
 */
export const twoFactorSecrets = pgTable('two_factor_secrets', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secretSealed: text('secret_sealed').notNull(),
  enabledAt: timestamp('enabled_at', { withTimezone: true, mode: 'date' }),
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  createdAt: createdAt(),
});

/** One-time recovery codes, only their SHA-256 kept; a used code's row is deleted. */
export const twoFactorRecoveryCodes = pgTable(
  'two_factor_recovery_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [index('two_factor_recovery_codes_user_idx').on(t.userId)],
);

/**
 * A requested e-mail change waiting for its link (mailed to the new address) to be opened: only the
 * token's SHA-256 is stored, one-time, valid one hour.
 */
export const emailChanges = pgTable(
  'email_changes',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    newEmail: text('new_email').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('email_changes_user_idx').on(t.userId), index('email_changes_expiry_idx').on(t.expiresAt)],
);

/**
 * The «это был не я — отменить» links mailed to the old address when an e-mail change went through: only
 * the token's SHA-256 is kept, with the address to restore. Not among the links voidLinks ends (links.ts):
 * whoever took the account over could otherwise kill the owner's way back by ending sessions or changing
 * the password or the address again.
 */
export const emailChangeReverts = pgTable(
  'email_change_reverts',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    oldEmail: text('old_email').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('email_change_reverts_user_idx').on(t.userId), index('email_change_reverts_expiry_idx').on(t.expiresAt)],
);

/**
 * A dashboard sign-in, so the owner can see where the account is open and end one of them: the token
 * carries the row's id (`sid`). Rows stay after their end (`endedAt`), so a later sign-in can tell a
 * device seen before from a new one. `generation` is the user's sessions generation at sign-in: a row of
 * an older one was ended with every other session (logout-all, a password change) and is not listed.
 */
export const userSessions = pgTable(
  'user_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    generation: integer('generation').notNull(),
    /** The browser and system in plain words (devices.ts), as the list and the new-device check read it. */
    device: text('device').notNull(),
    address: text('address').notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('user_sessions_user_idx').on(t.userId, t.createdAt)],
);
