// Who is an admin. ADMIN_EMAILS names the addresses, but the text of an address proves nothing: whoever
// registered the operator's address before the operator did would be handed the right to credit money.
// So a listed address becomes admin only once it is proven, by the mailed verification link or by the
// operator granting it on the server (`npm run admin:grant -- <email>`), and stays admin while listed.
import { eq } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { users } from '../db/schema';

export type Role = 'user' | 'admin';

/**
 * The role a user has at login: admin while the address is listed and proven (verified, or already admin
 * through the grant); removing an address from ADMIN_EMAILS takes the role away at the next login.
 */
export function roleAtLogin(adminEmails: readonly string[], account: { email: string; role: string; emailVerifiedAt: Date | null }): Role {
  if (!adminEmails.includes(account.email)) return 'user';
  return account.emailVerifiedAt !== null || account.role === 'admin' ? 'admin' : 'user';
}

export type GrantResult =
  | { granted: true; userId: string; email: string; createdAt: Date; alreadyAdmin: boolean }
  | { granted: false; reason: 'not_listed' | 'no_account' };

/**
 * The operator's grant: the address must be in ADMIN_EMAILS (or the next login would take the role back)
 * and registered. Whoever holds the account gets the role, so the caller shows when it was registered.
 */
export async function grantAdmin(db: Executor, adminEmails: readonly string[], rawEmail: string): Promise<GrantResult> {
  const email = rawEmail.trim().toLowerCase();
  if (!adminEmails.includes(email)) return { granted: false, reason: 'not_listed' };
  const [before] = await db.select({ role: users.role }).from(users).where(eq(users.email, email)).limit(1);
  if (!before) return { granted: false, reason: 'no_account' };
  const [row] = await db
    .update(users)
    .set({ role: 'admin' })
    .where(eq(users.email, email))
    .returning({ id: users.id, email: users.email, createdAt: users.createdAt });
  if (!row) return { granted: false, reason: 'no_account' };
  return { granted: true, userId: row.id, email: row.email, createdAt: row.createdAt, alreadyAdmin: before.role === 'admin' };
}

/** Called when an address is verified through the mailed link: a listed one becomes admin at once. */
export async function promoteIfListed(db: Executor, adminEmails: readonly string[], userId: string): Promise<void> {
  if (adminEmails.length === 0) return;
  const [row] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  if (row && adminEmails.includes(row.email)) await db.update(users).set({ role: 'admin' }).where(eq(users.id, userId));
}
