// Escalations queue for the morning (issue 42 point 5): a client handed to a person outside the agent's
// working hours does not wake the owner — its Telegram notice went without a sound (or, with no bot, no mail
// went at once) — and when the next working day starts the owner gets ONE message (Telegram, else mail)
// listing the clients still waiting: phone, first words, how long they have waited, the dialogue's link.
// A row in morning_summaries (unique: agent, working day) is claimed in the transaction that queues that
// message, so two instances or a restart never send a second one; the escalations it took are marked in the
// same transaction. The dashboard's inbox pins them on top already (longest wait first).
import { and, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import { zoneOf, type WorkingHours } from '../../agents';
import { agents } from '../../agents/tables';
import { rowsOf, type Database, type Transaction } from '../../db/client';
import type { Logger } from '../../logger';
import { dayIn, type Notifier } from './notify';
import type { OwnerMail } from './owner-mail';
import { escalations, morningSummaries } from './tables';
import { MORNING_LIST_MAX, messengerTexts, type WaitingClient } from './texts';

const BATCH = 200;
const FIRST_WORDS_MAX = 80;

export interface MorningQueueDeps {
  db: Database;
  notifier: Pick<Notifier, 'enqueueMorningSummary'>;
  ownerMail: OwnerMail;
  /** The zone of working hours that name none (YCLIENTS_TIME_ZONE): the summary's day is counted in it. */
  timeZone: string;
  logger: Logger;
}

/** One line of the client's words: spaces collapsed, cut at FIRST_WORDS_MAX characters. */
function firstWords(text: string | null): string | null {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  if (!line) return null;
  return line.length > FIRST_WORDS_MAX ? `${line.slice(0, FIRST_WORDS_MAX - 1)}…` : line;
}

export function createMorningQueue(deps: MorningQueueDeps) {
  const { db, logger } = deps;

  /** The escalations `taken` whose clients still wait for a person (not given back, no person has written since). */
  async function stillWaiting(tx: Transaction, taken: string[], now: Date, agentId: string): Promise<WaitingClient[]> {
    const rows = rowsOf<{ dialogue_id: string; client_phone: string | null; reason: string; waited_ms: number; words: string | null }>(
      await tx.execute(sql`
        select e.dialogue_id, e.client_phone, e.reason,
               (extract(epoch from (${now.toISOString()}::timestamptz - e.created_at)) * 1000)::float8 as waited_ms,
               (select m.content from dialogue_messages m
                 where m.dialogue_id = e.dialogue_id and m.role = 'user' and m.created_at <= e.created_at
                   and m.created_at > greatest(e.created_at - interval '1 day',
                         coalesce((select max(p.released_at) from escalations p
                                    where p.dialogue_id = e.dialogue_id and p.created_at < e.created_at), 'epoch'::timestamptz))
                 order by (m.kind is not null), m.id limit 1) as words
          from escalations e
          join dialogues d on d.id = e.dialogue_id
         where e.id in (${sql.join(
           taken.map((id) => sql`${id}::uuid`),
           sql`, `,
         )})
           and e.released_at is null and d.mode = 'operator'
           and not exists (select 1 from dialogue_messages o
                            where o.dialogue_id = e.dialogue_id and o.role = 'operator' and o.created_at >= e.created_at)
         order by e.created_at`),
    );
    // One line per dialogue: a client handed over twice in the night is one client waiting since the first time.
    const seen = new Set<string>();
    const list: WaitingClient[] = [];
    for (const r of rows) {
      if (seen.has(r.dialogue_id)) continue;
      seen.add(r.dialogue_id);
      list.push({
        clientPhone: r.client_phone,
        firstWords: firstWords(r.words),
        reason: r.reason,
        waitedMinutes: Math.max(0, Math.floor(Number(r.waited_ms) / 60_000)),
        link: `${deps.ownerMail.dialoguesUrl(agentId)}/${r.dialogue_id}`,
      });
    }
    return list;
  }

  /** The summary of one agent whose morning has come; null when another pass already sent this morning's. */
  async function summarize(agentId: string, morning: Date, now: Date): Promise<{ listed: number; via: 'telegram' | 'mail' | 'none' } | null> {
    return db.transaction(async (tx) => {
      const [agent] = await tx.select({ name: agents.name, workingHours: agents.workingHours }).from(agents).where(eq(agents.id, agentId)).limit(1);
      if (!agent) return null;
      const day = dayIn(morning, zoneOf(agent.workingHours as WorkingHours | null, deps.timeZone));
      const [claimed] = await tx.insert(morningSummaries).values({ agentId, day, listed: 0 }).onConflictDoNothing().returning({ day: morningSummaries.day });
      // Every escalation of the agent whose morning has come is taken now, listed or not: none waits for a second summary.
      const taken = await tx
        .update(escalations)
        .set({ summarizedAt: now })
        .where(and(eq(escalations.agentId, agentId), isNotNull(escalations.quietUntil), isNull(escalations.summarizedAt), lte(escalations.quietUntil, now)))
        .returning({ id: escalations.id });
      if (!claimed) {
        if (taken.length > 0) logger.info('night escalations after this morning’s summary: left pinned in the inbox', { agentId, day, count: taken.length });
        return null;
      }
      const waiting =
        taken.length > 0
          ? await stillWaiting(
              tx,
              taken.map((e) => e.id),
              now,
              agentId,
            )
          : [];
      await tx
        .update(morningSummaries)
        .set({ listed: waiting.length })
        .where(and(eq(morningSummaries.agentId, agentId), eq(morningSummaries.day, day)));
      if (waiting.length === 0) return { listed: 0, via: 'none' as const };
      const m = messengerTexts.morning;
      const shown = waiting.slice(0, MORNING_LIST_MAX);
      const items = shown.map((c, i) => m.item(i + 1, c));
      const more = waiting.length > shown.length ? [m.more(waiting.length - shown.length)] : [];
      const text = [m.title(agent.name, waiting.length), '', items.join('\n\n'), ...more, '', m.answer].join('\n');
      if (await deps.notifier.enqueueMorningSummary(tx, agentId, text, day)) return { listed: waiting.length, via: 'telegram' as const };
      const url = deps.ownerMail.dialoguesUrl(agentId);
      const mailed = await deps.ownerMail.enqueue(tx, agentId, {
        subject: m.mailSubject(agent.name, waiting.length),
        lines: [[m.mailHello], [m.title(agent.name, waiting.length)], ...shown.map((c, i) => m.item(i + 1, c).split('\n')), more, [m.mailAnswer, url]].filter(
          (p) => p.length > 0,
        ),
        urls: [...shown.map((c) => c.link), url],
      });
      return { listed: waiting.length, via: mailed ? ('mail' as const) : ('none' as const) };
    });
  }

  return {
    /**
     * Sends the morning summary of every agent whose next working day has started by `now` (an injected
     * clock in tests) and has clients handed over in the night; safe on any number of instances at once.
     */
    async sendDue(now: Date = new Date()): Promise<{ summaries: number; listed: number }> {
      const due = rowsOf<{ agent_id: string; morning_ms: number }>(
        await db.execute(sql`
          select e.agent_id, (extract(epoch from min(e.quiet_until)) * 1000)::float8 as morning_ms
            from escalations e
           where e.quiet_until is not null and e.summarized_at is null and e.quiet_until <= ${now.toISOString()}::timestamptz
           group by e.agent_id
           limit ${BATCH}`),
      );
      let summaries = 0;
      let listed = 0;
      for (const row of due) {
        try {
          const done = await summarize(row.agent_id, new Date(Number(row.morning_ms)), now);
          if (done && done.via !== 'none') summaries += 1;
          listed += done?.listed ?? 0;
        } catch (error) {
          logger.error('the morning summary of night escalations failed', { agentId: row.agent_id, error });
        }
      }
      if (summaries > 0) logger.info('morning summaries of night escalations', { summaries, listed });
      return { summaries, listed };
    },
  };
}

export type MorningQueue = ReturnType<typeof createMorningQueue>;
