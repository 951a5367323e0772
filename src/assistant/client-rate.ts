// ASSISTANT_CLIENT_MESSAGES_PER_MINUTE: a client writing faster than that is told once a minute to slow
// down, and the messages over it are kept in the transcript (the owner reads them) but not acted on — no
// model call billed to the owner, no booking system asked.
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client';

export function createClientRate({ db, perMinute }: { db: Database; perMinute: number }) {
  return {
    /**
     * Whether the dialogue's newest message (already remembered) is within the limit; over it, 'notice' for
     * the one that is told (claimed by a conditional update), 'quiet' for the rest of that minute.
     */
    async check(dialogueId: string): Promise<'ok' | 'notice' | 'quiet'> {
      if (perMinute <= 0) return 'ok';
      const [counted] = rowsOf<{ n: number }>(
        await db.execute(sql`
          select count(*)::int as n from dialogue_messages
           where dialogue_id = ${dialogueId} and role = 'user' and created_at > now() - interval '1 minute'`),
      );
      if (Number(counted?.n ?? 0) <= perMinute) return 'ok';
      const claimed = rowsOf<{ id: string }>(
        await db.execute(sql`
          update dialogues set rate_notice_at = now()
           where id = ${dialogueId} and (rate_notice_at is null or rate_notice_at <= now() - interval '1 minute')
          returning id`),
      );
      return claimed.length > 0 ? 'notice' : 'quiet';
    },
  };
}

export type ClientRate = ReturnType<typeof createClientRate>;
