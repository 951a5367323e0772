// Mails the owner about what happened to the account's security: the password changed, two-factor login
// switched on or off, a recovery code used, the factor locked after wrong codes, a sign-in from a new device. Sent after the change has
// committed and without holding up the answer: a mail server that refuses is logged, nothing is undone.
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client';
import { users } from './tables';
import type { Logger } from '../logger';
import type { Mailer } from '../mail/mailer';
import { securityNoticeMail, type SecurityEvent, type SecurityEventDetail } from './texts';

export interface SecurityNoticesDeps {
  db: Database;
  /** Null without SMTP_URL: nothing can be mailed then. */
  mailer: Mailer | null;
  logger: Logger;
  publicBaseUrl: string;
  /** TOTP_LOCKOUT_SECONDS, named in the lock's mail. */
  lockoutSeconds: number;
}

export function createSecurityNotices({ db, mailer, logger, publicBaseUrl, lockoutSeconds }: SecurityNoticesDeps) {
  const inFlight = new Set<Promise<void>>();

  function tell(userId: string, event: SecurityEvent, detail: SecurityEventDetail = {}): void {
    if (!mailer) return;
    const sending = (async () => {
      const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
      if (!user) return;
      const loginLink = `${publicBaseUrl}/app/login`;
      const minutes = Math.ceil(lockoutSeconds / 60);
      await mailer.send({
        to: user.email,
        subject: securityNoticeMail.subject(event),
        text: securityNoticeMail.text(event, { ...detail, minutes }, loginLink),
        html: securityNoticeMail.html(event, { ...detail, minutes }, loginLink),
      });
    })()
      .catch((error) => {
        const e = error as { code?: unknown };
        logger.error('security notice not sent', { userId, event, code: typeof e?.code === 'string' ? e.code : 'unknown' });
      })
      .finally(() => inFlight.delete(sending));
    inFlight.add(sending);
  }

  return {
    tell,
    async stop(): Promise<void> {
      await Promise.allSettled([...inFlight]);
      mailer?.close();
    },
  };
}

export type SecurityNotices = ReturnType<typeof createSecurityNotices>;
