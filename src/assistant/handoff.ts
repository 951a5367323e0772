// A client handed to a person is never parked: told the truth about when a person answers (Telegram or
// not, working hours or not), acknowledged once when writing while the person has not spoken yet, and given
// back to the assistant — and told so — when nobody has answered for HANDOFF_TIMEOUT_MINUTES of the agent's
// working time (the night and days off are not counted, so a dialogue is never given back at night).
import { eq, sql } from 'drizzle-orm';
import { type Agent, availabilityAt, type WorkingHours, workingMsBetween } from '../agents';
import { rowsOf, type Database, type Executor } from '../db/client';
import { dialogues } from '../dialogues/tables';
import type { Escalations } from '../integrations/messenger';
import type { Logger } from '../logger';
import type { DialogueRow } from './flow';
import { assistantTexts as t, whenOpens } from './texts';

const SWEEP_BATCH = 200;

export interface HandoffDeps {
  db: Database;
  escalations: Pick<Escalations, 'returnUnanswered'>;
  /** Whether the agent's owner has a Telegram bot that hears of a hand-over at once. */
  hasMessenger(agentId: string): Promise<boolean>;
  /** The agent's zone when its working hours name none (YCLIENTS_TIME_ZONE). */
  timeZone: string;
  /** HANDOFF_TIMEOUT_MINUTES; 0: a hand-over never times out. */
  timeoutMinutes: number;
  logger: Logger;
}

/**
 * Since when the client of dialogue `d` waits for a person: nobody holds it yet — since the open escalation;
 * a person holds it — since the client's first message after the person last spoke (or took it); null when
 * the client waits for nothing.
 */
const waitingSince = sql`case when d.held_by is null then
    (select min(e.created_at) from escalations e where e.dialogue_id = d.id and e.released_at is null)
  else
    (select min(m.created_at) from dialogue_messages m
      where m.dialogue_id = d.id and m.role = 'user' and m.created_at > coalesce(d.held_at, 'epoch'::timestamptz)
        and m.id > coalesce((select max(o.id) from dialogue_messages o where o.dialogue_id = d.id and o.role = 'operator'), 0))
  end`;

/** When the current hand-over of dialogue `d` began: its open escalation, or the person's taking it. */
const handedAt = sql`least((select min(e.created_at) from escalations e where e.dialogue_id = d.id and e.released_at is null), d.held_at)`;

export function createHandoff(deps: HandoffDeps) {
  const { db, logger } = deps;
  const timeoutMs = deps.timeoutMinutes * 60_000;

  function availability(agent: Pick<Agent, 'workingHours'>) {
    return availabilityAt(agent.workingHours, new Date(), deps.timeZone);
  }

  return {
    /** Outside working hours: when a person answers («завтра с 10:00»); null within them or without hours set. */
    whenClosed(agent: Pick<Agent, 'workingHours'>): string | null {
      const now = availability(agent);
      return now.kind === 'closed' ? whenOpens(now.day, now.time) : null;
    },

    /** What the client is told when handed to a person: when one will answer, as far as it can be known. */
    async handedOverText(agent: Agent): Promise<string> {
      const now = availability(agent);
      if (now.kind === 'closed') return t.escalatedClosed(whenOpens(now.day, now.time));
      if (await deps.hasMessenger(agent.id)) return t.escalated;
      return now.kind === 'open' ? t.escalatedUntil(now.until) : t.escalatedUnreachable;
    },

    /**
     * A client writes while a person has the dialogue: told once per hand-over that the question is with a
     * person — and only while that person has not spoken yet (after that, a bot's line would talk over them).
     * The conditional update claims the acknowledgement, so two messages at once send one.
     */
    async acknowledge(agent: Agent, dialogue: DialogueRow, say: (dialogue: DialogueRow, text: string) => Promise<void>): Promise<string> {
      const claimed = rowsOf<{ id: string }>(
        await db.execute(sql`
          update dialogues d set operator_ack_at = now()
           where d.id = ${dialogue.id} and d.mode = 'operator'
             and (d.operator_ack_at is null or d.operator_ack_at < ${handedAt})
             and not exists (select 1 from dialogue_messages m
                              where m.dialogue_id = d.id and m.role = 'operator' and m.created_at >= coalesce(${handedAt}, now()))
          returning d.id`),
      );
      if (claimed.length === 0) return 'with_operator';
      const now = availability(agent);
      const reachable = await deps.hasMessenger(agent.id);
      const text = now.kind === 'closed' ? t.withOperatorClosed(whenOpens(now.day, now.time)) : reachable ? t.withOperator : t.withOperatorUnreachable;
      await say(dialogue, text);
      return 'with_operator_acknowledged';
    },

    /** Gives back to the assistant every dialogue whose client has waited for a person past the timeout. */
    async sweep(): Promise<number> {
      if (timeoutMs <= 0) return 0;
      const candidates = rowsOf<{ id: string; agent_id: string; channel: string; peer_id: string; working_hours: WorkingHours | null; since_ms: number }>(
        await db.execute(sql`
          select d.id, d.agent_id, d.channel, d.peer_id, a.working_hours, (extract(epoch from w.since) * 1000)::float8 as since_ms
            from dialogues d
            join agents a on a.id = d.agent_id
            cross join lateral (select ${waitingSince} as since) w
           where d.mode = 'operator' and w.since < now() - make_interval(secs => ${timeoutMs / 1000})
           order by w.since
           limit ${SWEEP_BATCH}`),
      );
      let returned = 0;
      for (const row of candidates) {
        if (!overdue(row.working_hours, new Date(Number(row.since_ms)))) continue;
        try {
          const done = await db.transaction(async (tx) => {
            // Held while deciding: a person answering right now either lands first (and the client waits no
            // more) or after (and the reply opens a new hand-over).
            const [locked] = await tx.select({ id: dialogues.id }).from(dialogues).where(eq(dialogues.id, row.id)).for('update');
            if (!locked || !(await stillWaiting(tx, row.id, row.working_hours))) return false;
            await deps.escalations.returnUnanswered(tx, { agentId: row.agent_id, dialogueId: row.id, channel: row.channel, peerId: row.peer_id }, minutesText());
            return true;
          });
          if (done) returned += 1;
        } catch (error) {
          logger.error('returning an unanswered dialogue to the assistant failed', { dialogueId: row.id, error });
        }
      }
      return returned;
    },

    /** How often the sweep should look: a small part of the timeout, between 200 ms and a minute. */
    sweepIntervalMs: Math.min(60_000, Math.max(200, Math.round(timeoutMs / 6))),
  };

  function minutesText(): number {
    return Number(deps.timeoutMinutes.toFixed(2));
  }

  function overdue(hours: WorkingHours | null, since: Date): boolean {
    return workingMsBetween(hours, since, new Date(), deps.timeZone) >= timeoutMs;
  }

  async function stillWaiting(tx: Executor, dialogueId: string, hours: WorkingHours | null): Promise<boolean> {
    const [row] = rowsOf<{ since_ms: number | null }>(
      await tx.execute(
        sql`select (extract(epoch from ${waitingSince}) * 1000)::float8 as since_ms from dialogues d where d.id = ${dialogueId} and d.mode = 'operator'`,
      ),
    );
    if (row?.since_ms === null || row?.since_ms === undefined) return false;
    return overdue(hours, new Date(Number(row.since_ms)));
  }
}

export type Handoff = ReturnType<typeof createHandoff>;
