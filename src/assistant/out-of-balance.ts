// The owner's balance cannot pay the assistant's model. Nobody is parked: the dialogue stays with the bot,
// each writing client is told once per such spell that the assistant is unavailable, and the owner is alerted
// once per spell (Telegram when the agent has a bot, mail when SMTP_URL is set) — not once per client. The
// spell ends with the next model answer the balance pays for, and the next one is told and alerted anew.
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Agent } from '../agents';
import type { Database, Executor } from '../db/client';
import { agents } from '../agents/tables';
import { dialogues } from '../dialogues/tables';
import { type Notifier, type OwnerMail, messengerTexts } from '../integrations/messenger';
import type { OutboxWorker } from '../jobs/outbox';
import type { DialogueRow } from './flow';
import { assistantTexts as t } from './texts';

export interface OutOfBalanceDeps {
  db: Database;
  notifier: Pick<Notifier, 'enqueueOutOfBalance'>;
  ownerMail: Pick<OwnerMail, 'enqueue' | 'topupUrl'>;
  outbox: Pick<OutboxWorker, 'wake'>;
  /** Says a text to the client in the caller's transaction (remembered and queued). */
  say(dialogue: DialogueRow, text: string, executor: Executor): Promise<void>;
}

export function createOutOfBalance(deps: OutOfBalanceDeps) {
  const { db } = deps;
  return {
    /** A model call was refused for the owner's balance: the alert and the client's notice, each once. */
    async refused(agent: Agent, dialogue: DialogueRow): Promise<string> {
      const told = await db.transaction(async (tx) => {
        const [spell] = await tx
          .update(agents)
          .set({ outOfBalanceAt: sql`now()` })
          .where(and(eq(agents.id, agent.id), isNull(agents.outOfBalanceAt)))
          .returning({ at: agents.outOfBalanceAt });
        if (spell) {
          await deps.notifier.enqueueOutOfBalance(tx, agent.id, deps.ownerMail.topupUrl);
          await deps.ownerMail.enqueue(tx, agent.id, {
            subject: messengerTexts.outOfBalanceMail.subject(agent.name),
            lines: messengerTexts.outOfBalanceMail.lines(agent.name, deps.ownerMail.topupUrl),
            urls: [deps.ownerMail.topupUrl],
          });
        }
        // Told once per spell: a notice older than the spell's start was for another one (or a block).
        const [claimed] = await tx
          .update(dialogues)
          .set({ unavailableNoticeAt: sql`now()` })
          .where(
            and(
              eq(dialogues.id, dialogue.id),
              or(isNull(dialogues.unavailableNoticeAt), lt(dialogues.unavailableNoticeAt, sql`(select out_of_balance_at from agents where id = ${agent.id})`)),
            ),
          )
          .returning({ id: dialogues.id });
        if (claimed) await deps.say(dialogue, t.outOfBalanceNotice, tx);
        return Boolean(claimed);
      });
      deps.outbox.wake();
      return told ? 'out_of_balance_notice' : 'out_of_balance';
    },

    /** A model answer was paid for: the spell (if any) is over. */
    async paid(agent: Agent): Promise<void> {
      if (!agent.outOfBalanceAt) return;
      await db.update(agents).set({ outOfBalanceAt: null }).where(eq(agents.id, agent.id));
    },
  };
}

export type OutOfBalance = ReturnType<typeof createOutOfBalance>;
