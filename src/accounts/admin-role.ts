// Who is an admin. ADMIN_EMAILS names the addresses, but the text of an address proves nothing: whoever
// registered the operator's address before the operator did would be handed the right to credit money.
// Nor does a verified address alone: whoever registered it chose the password. So a listed address
// becomes admin only when the mailbox holder submits the verification link's form, which also sets the
// account's password and ends every earlier session (email-verification.ts), or when the operator grants
// it on the server (`npm run admin:grant -- <email>`); it stays admin while listed.
import { eq } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { users } from './tables';

export type Role = 'user' | 'admin';

/**
 * The role a user has at login: admin while the address is listed and the role was given (by the link's
 * form or the grant); removing an address from ADMIN_EMAILS takes the role away at the next login. A
 * login never promotes: a verified address whose password its registrant chose proves nothing.
 */
export function roleAtLogin(adminEmails: readonly string[], account: { email: string; role: string }): Role {
  return adminEmails.includes(account.email) && account.role === 'admin' ? 'admin' : 'user';
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
