// Mail to an agent's owner, for what the owner must hear of when the agent has no Telegram bot (a client
// handed to a person) or in any case (the assistant stopped for lack of money). Queued in the caller's
// transaction as an alert mail (alerts/delivery.ts sends it over SMTP_URL); without SMTP_URL nothing is queued.
import { eq } from 'drizzle-orm';
import { ALERT_MAIL_KIND, mailBodies } from '../../alerts';
import type { Config } from '../../config';
import type { Executor } from '../../db/client';
import { users } from '../../accounts/tables';
import { agents } from '../../agents/tables';
import { enqueueOutbox } from '../../jobs/outbox';

export interface OwnerMailContent {
  subject: string;
  /** Paragraphs, each of lines. */
  lines: string[][];
  /** URLs in the lines that become links in the HTML part. */
  urls: string[];
}

export function createOwnerMail({ config }: { config: Pick<Config, 'smtp' | 'publicBaseUrl'> }) {
  return {
    /** Where the owner answers the agent's clients in the dashboard. */
    dialoguesUrl: (agentId: string) => `${config.publicBaseUrl}/app/agents/${agentId}/dialogues`,
    topupUrl: `${config.publicBaseUrl}/app/topups`,

    /** Queues the mail to the agent's owner; false when no mail can leave (no SMTP_URL, or no such agent). */
    async enqueue(tx: Executor, agentId: string, mail: OwnerMailContent): Promise<boolean> {
      if (!config.smtp) return false;
      const [owner] = await tx.select({ email: users.email }).from(agents).innerJoin(users, eq(users.id, agents.userId)).where(eq(agents.id, agentId)).limit(1);
      if (!owner) return false;
      await enqueueOutbox(tx, [{ kind: ALERT_MAIL_KIND, recipient: owner.email, payload: { subject: mail.subject, ...mailBodies(mail.lines, mail.urls) } }]);
      return true;
    },
  };
}

export type OwnerMail = ReturnType<typeof createOwnerMail>;
