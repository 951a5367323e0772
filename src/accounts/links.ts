// The mailed links of an account (address verification, e-mail change, password reset) die together: an
// e-mail change, a password change or reset, logout-all and an operator's end of sessions void every link
// issued before, so a link kept back (or fetched by a mail scanner) cannot act after the owner moved on.
import { eq } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { emailChanges, emailVerifications, passwordResets } from './tables';

/** Deletes every outstanding link of the user, in the caller's transaction. */
export async function voidLinks(tx: Executor, userId: string): Promise<void> {
  await tx.delete(emailVerifications).where(eq(emailVerifications.userId, userId));
  await tx.delete(emailChanges).where(eq(emailChanges.userId, userId));
  await tx.delete(passwordResets).where(eq(passwordResets.userId, userId));
}
