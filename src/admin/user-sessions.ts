// Operator help with a user's sign-in: mail the user a password-reset link, end every session. Each writes
// its audit row in the transaction of the change.
import { eq } from 'drizzle-orm';
import { type AccountService, endSessions } from '../accounts';
import { isUuid } from '../db/uuid';
import type { Database } from '../db/client';
import { users } from '../accounts/tables';
import { AppError } from '../http/errors';
import { gatewayMessages } from '../gateway';
import { recordAudit, type AuditActor } from './audit';

export interface AdminUserSessionsDeps {
  db: Database;
  accounts: Pick<AccountService, 'passwordReset' | 'sessionsEnded'>;
}

export function createAdminUserSessions({ db, accounts }: AdminUserSessionsDeps) {
  async function requireUser(userId: string) {
    if (!isUuid(userId)) throw new AppError('not_found', gatewayMessages.adminUserNotFound);
    const [row] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
    if (!row) throw new AppError('not_found', gatewayMessages.adminUserNotFound);
    return row;
  }

  return {
    /**
     * A new link (older ones voided) stored with its audit row, then mailed; a mail server that refuses
     * is reported to the operator (503), the link stays issued and the next press replaces it.
     */
    async sendPasswordReset(actor: AuditActor, userId: string): Promise<{ email: string }> {
      const user = await requireUser(userId);
      const token = await db.transaction(async (tx) => {
        const issued = await accounts.passwordReset.issueFor(tx, user.id);
        await recordAudit(tx, actor, {
          action: 'user.password_reset_sent',
          targetType: 'user',
          targetId: user.id,
          before: null,
          after: { email: user.email },
        });
        return issued;
      });
      await accounts.passwordReset.deliverIssued(user.email, token);
      return { email: user.email };
    },

    async endSessions(actor: AuditActor, userId: string): Promise<void> {
      const user = await requireUser(userId);
      await db.transaction(async (tx) => {
        const generation = await endSessions(tx, user.id);
        await recordAudit(tx, actor, {
          action: 'user.sessions_ended',
          targetType: 'user',
          targetId: user.id,
          before: { sessionsGeneration: generation - 1 },
          after: { sessionsGeneration: generation },
        });
      });
      accounts.sessionsEnded(user.id);
    },
  };
}
