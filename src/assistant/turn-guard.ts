// The owner's word is final (issue 39 point 2): a model turn takes seconds, and the owner may take the
// dialogue over meanwhile. Before every tool call and every message the turn re-reads the dialogue's
// mode; a message goes out only in a transaction that holds the dialogue's row while it is queued, so a
// takeover committed first is always seen and one committed after waits for the queued message (which
// the owner then sees in the transcript before their own reply). What the bot would have said after a
// takeover is kept in the transcript, marked unsent, and never queued.
import { sql } from 'drizzle-orm';
import { rowsOf, type Database, type Executor } from '../db/client';
import { dialogueMessages } from '../dialogues/tables';
import type { Logger } from '../logger';

/** VK shows «печатает…» for about 10 s after messages.setActivity: renewed this often while the turn works. */
const TYPING_RENEW_MS = 5000;

export interface TurnGuard {
  /** Whether the assistant still answers this dialogue (no person holds it, the client allows messages). */
  ours(dialogueId: string): Promise<boolean>;
  /**
   * Runs `send` in a transaction holding the dialogue's row, if the assistant still answers it; returns
   * false (and runs nothing) when a person holds it.
   */
  whileOurs(dialogueId: string, send: (tx: Executor) => Promise<void>): Promise<boolean>;
  /** Keeps what the bot would have said in the transcript, marked unsent (the owner sees it; the client never does). */
  keepUnsent(dialogueId: string, text: string, requestId?: string): Promise<void>;
}

export function createTurnGuard(db: Database): TurnGuard {
  async function modeOf(executor: Executor, dialogueId: string, lock: boolean): Promise<string | null> {
    const result = await executor.execute(sql`select mode, messaging_allowed from dialogues where id = ${dialogueId} ${lock ? sql`for update` : sql``}`);
    const row = rowsOf<{ mode: string; messaging_allowed: boolean | null }>(result)[0];
    if (!row) return null;
    return row.messaging_allowed === false ? 'denied' : row.mode;
  }

  return {
    async ours(dialogueId) {
      return (await modeOf(db, dialogueId, false)) === 'assistant';
    },

    async whileOurs(dialogueId, send) {
      return db.transaction(async (tx) => {
        if ((await modeOf(tx, dialogueId, true)) !== 'assistant') return false;
        await send(tx);
        return true;
      });
    },

    async keepUnsent(dialogueId, text, requestId) {
      if (text.trim() === '') return;
      await db.insert(dialogueMessages).values({ dialogueId, role: 'assistant', content: text.slice(0, 8000), requestId: requestId ?? null, kind: 'unsent' });
    },
  };
}

/** Assistant turns that went out (not kept unsent): the model's history and "was the client answered" read only these. */
export const UNSENT = 'unsent';

/**
 * The client sees «печатает…» while the model or a tool works: `pulse` sets it now and keeps renewing it
 * until `stop` (a message sent clears it in VK anyway). A failure to set it is only logged.
 */
export function keepTyping(setTyping: (() => Promise<void>) | null, logger: Logger) {
  let timer: ReturnType<typeof setInterval> | null = null;
  const fire = () => {
    setTyping?.().catch((error: unknown) => logger.debug('typing indicator failed', { error }));
  };
  return {
    pulse() {
      if (!setTyping) return;
      fire();
      if (timer) clearInterval(timer);
      timer = setInterval(fire, TYPING_RENEW_MS);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}

/**
 * A tool call's arguments as JSON text: OpenAI sends a string; some compatible hosts send the object
 * itself, which is taken as it is rather than lost.
 */
export function toolArguments(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (raw !== null && typeof raw === 'object') return JSON.stringify(raw);
  return '{}';
}

/**
 * Whether the model turn of this request id has already left its mark (an answer the model wrote, a tool
 * it called): a claim of the same burst again is stale, not a turn cut short before it began.
 */
export async function turnAlreadyRan(db: Database, dialogueId: string, requestId: string): Promise<boolean> {
  const result = await db.execute(sql`
    select 1 from dialogue_messages
     where dialogue_id = ${dialogueId} and request_id = ${requestId} and role in ('assistant', 'tool')
     limit 1`);
  return rowsOf(result).length > 0;
}
