// The owner's inbox: an agent's client dialogues as the dashboard lists them, their transcripts, and the
// owner stepping in (takeover, replies, release). The state of who answers a client lives on the dialogue
// row and is shared with the Telegram operator path (messenger/escalations.ts): a takeover in one is
// seen in the other, and the hold is taken by one conditional UPDATE, so two operators never hold a
// dialogue. Everything is read from the database, so every instance sees the same inbox.
import { and, desc, eq, gt, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import { likeContains } from '../db/like';
import { users } from '../accounts/tables';
import { agents, notifications } from '../agents/tables';
import { escalations as escalationRows } from '../integrations/messenger/tables';
import { socialEvents } from '../integrations/social/tables';
import { outbox } from '../jobs/tables';
import { dialogueMessages, dialogues } from './tables';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { dialoguesMessages } from './texts';
import type { OutboxWorker } from '../jobs/outbox';
import type { Escalations } from '../integrations/messenger';
import { type SocialSettings, queueSocialMessage, SOCIAL_CHANNEL, SOCIAL_MESSAGE_KIND } from '../integrations/social';
import { nanoToUnits } from '../money';
import type { DialogueListQuery, DialogueState, InboxCounts, InboxQuery, TranscriptQuery } from './input';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DIGITS = /^\d+$/;
const MAX_TURN = 8000;

export type Author = 'client' | 'assistant' | 'operator';
export type TurnAuthor = Author | 'tool' | 'note';
const AUTHOR_OF_ROLE: Record<string, TurnAuthor> = { user: 'client', assistant: 'assistant', operator: 'operator', tool: 'tool', note: 'note' };
/** The most dialogues waiting for a person the inbox pins on top at once (the longest waits first). */
const MAX_WAITING = 100;

/** One state per dialogue, in the order it is decided: a client who forbade messages closes it. */
const stateSql: SQL<DialogueState> = sql<DialogueState>`case
  when ${dialogues.messagingAllowed} = false then 'closed'
  when ${dialogues.mode} = 'assistant' then 'bot'
  when ${dialogues.heldBy} is not null then 'operator'
  else 'escalated' end`;

const holderKeyOf = (userId: string) => `user:${userId}`;

// Drizzle leaves columns of a one-table query unqualified, and inside a subquery over dialogue_messages
// an unqualified "id" would be the message's: outer columns named there are spelled out.
const OUTER_DIALOGUE_ID = sql.raw('"dialogues"."id"');
const OUTER_READ_ID = sql.raw('"dialogues"."owner_read_message_id"');
const OUTER_REQUEST_ID = sql.raw('"dialogue_messages"."request_id"');

export interface DialogueView {
  id: string;
  channel: string;
  client: { vkUserId: number | null; name: string | null; phone: string | null };
  state: DialogueState;
  heldBy: { name: string; byYou: boolean; since: string | null } | null;
  lastMessage: { author: Author; text: string; at: string } | null;
  unread: number;
  /** Escalated: since when the client waits for a person. */
  waitingSince: string | null;
  lastMessageAt: string | null;
  createdAt: string;
}

export interface InboxItem extends DialogueView {
  agent: { id: string; name: string };
}

export interface TurnView {
  id: number;
  author: TurnAuthor;
  text: string;
  at: string;
  operatorName: string | null;
  toolName: string | null;
  buttons: string[][] | null;
  tap: boolean;
  /** An assistant turn kept, never sent: the dialogue was taken over while the model worked on it. */
  unsent: boolean;
  model: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Of promptTokens, read from the provider's cache; of completionTokens, the model's reasoning (issue 45). */
  cachedTokens: number | null;
  reasoningTokens: number | null;
  cost: number | null;
}

export interface DialogueDeps {
  db: Database;
  escalations: Escalations;
  socialSettings: Pick<SocialSettings, 'load'>;
  outbox: Pick<OutboxWorker, 'wake'>;
  /** The balance currency model answers are charged in. */
  currency: string;
}

export function createDialogues({ db, escalations, socialSettings, outbox: worker, currency }: DialogueDeps) {
  const lastTurn = sql<string | null>`(select json_build_object('role', m.role, 'content', left(m.content, 300),
      'at', to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text
    from dialogue_messages m where m.dialogue_id = ${OUTER_DIALOGUE_ID} and m.role not in ('tool', 'note') order by m.id desc limit 1)`;
  const unread = sql<string>`(select count(*) from dialogue_messages m
    where m.dialogue_id = ${OUTER_DIALOGUE_ID} and m.role = 'user' and m.id > ${OUTER_READ_ID})::text`;

  // Since when a client handed to a person waits: the open escalation (as the hand-over timeout counts it).
  const waitingSince = sql<Date | null>`case when ${stateSql} = 'escalated' then coalesce(
      (select min(e.created_at) from escalations e where e.dialogue_id = ${OUTER_DIALOGUE_ID} and e.released_at is null),
      ${dialogues.updatedAt}) end`.mapWith((v: unknown) => (v === null ? null : new Date(v as string)));

  const listColumns = { row: dialogues, state: stateSql, lastTurn, unread, waitingSince };

  function view(
    r: { row: typeof dialogues.$inferSelect; state: DialogueState; lastTurn: string | null; unread: string; waitingSince: Date | null },
    userId: string,
  ): DialogueView {
    const last = r.lastTurn ? (JSON.parse(r.lastTurn) as { role: string; content: string; at: string }) : null;
    const d = r.row;
    return {
      id: d.id,
      channel: d.channel,
      client: { vkUserId: DIGITS.test(d.peerId) ? Number(d.peerId) : null, name: d.clientName, phone: d.clientPhone },
      state: r.state,
      heldBy:
        d.mode === 'operator' && d.heldBy ? { name: d.heldByName ?? '', byYou: d.heldBy === holderKeyOf(userId), since: d.heldAt?.toISOString() ?? null } : null,
      lastMessage: last ? { author: (AUTHOR_OF_ROLE[last.role] as Author | undefined) ?? 'client', text: last.content, at: last.at } : null,
      unread: Number(r.unread),
      waitingSince: r.waitingSince?.toISOString() ?? null,
      lastMessageAt: d.lastMessageAt?.toISOString() ?? null,
      createdAt: d.createdAt.toISOString(),
    };
  }

  /** The dialogue of this agent, or 404 (another agent's dialogue is as unknown as a missing one). */
  async function find(agentId: string, dialogueId: string) {
    if (!UUID.test(dialogueId)) throw new AppError('not_found', dialoguesMessages.dialogueNotFound);
    const [row] = await db
      .select()
      .from(dialogues)
      .where(and(eq(dialogues.agentId, agentId), eq(dialogues.id, dialogueId)))
      .limit(1);
    if (!row) throw new AppError('not_found', dialoguesMessages.dialogueNotFound);
    return row;
  }

  async function ownerName(userId: string): Promise<string> {
    const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
    return user?.email ?? userId;
  }

  async function get(agentId: string, dialogueId: string, userId: string): Promise<DialogueView> {
    await find(agentId, dialogueId);
    const [row] = await db.select(listColumns).from(dialogues).where(eq(dialogues.id, dialogueId)).limit(1);
    if (!row) throw new AppError('not_found', dialoguesMessages.dialogueNotFound);
    return view(row, userId);
  }

  /** The search of the inbox: the client's VK id, name or phone, or the text of any turn. */
  function searchFilter(raw: string | undefined): SQL | undefined {
    const q = raw?.trim();
    if (!q) return undefined;
    const pattern = likeContains(q);
    return sql`(${dialogues.peerId} ilike ${pattern} escape '\\' or ${dialogues.clientName} ilike ${pattern} escape '\\'
      or ${dialogues.clientPhone} ilike ${pattern} escape '\\'
      or exists (select 1 from dialogue_messages m where m.dialogue_id = ${OUTER_DIALOGUE_ID} and m.content ilike ${pattern} escape '\\'))`;
  }

  return {
    get,

    /**
     * The owner's one inbox across the agents given (all theirs, or the one asked for, checked by the caller):
     * the dialogues waiting for a person in `waiting`, longest wait first (pinned above the rest, never paged
     * away), and the others in `dialogues`, newest activity first, paged. Same state filter and search as `list`.
     */
    async inbox(
      owned: { id: string; name: string }[],
      userId: string,
      query: Omit<InboxQuery, 'agentId'>,
    ): Promise<{ waiting: InboxItem[]; dialogues: InboxItem[]; nextCursor: string | null }> {
      if (owned.length === 0) return { waiting: [], dialogues: [], nextCursor: null };
      const names = new Map(owned.map((a) => [a.id, a.name]));
      const item = (r: Parameters<typeof view>[0]): InboxItem => ({ ...view(r, userId), agent: { id: r.row.agentId, name: names.get(r.row.agentId) ?? '' } });
      const base: SQL[] = [
        inArray(
          dialogues.agentId,
          owned.map((a) => a.id),
        ),
        isNotNull(dialogues.lastMessageAt),
      ];
      const search = searchFilter(query.q);
      if (search) base.push(search);
      const escalated = sql`${stateSql} = 'escalated'`;
      // Pinned on the first page only: the pages after it hold the rest.
      const wantWaiting = !query.cursor && (!query.state || query.state === 'escalated');
      const waiting = wantWaiting
        ? await db
            .select(listColumns)
            .from(dialogues)
            .where(and(...base, escalated))
            .orderBy(sql`${waitingSince} asc`, dialogues.id)
            .limit(MAX_WAITING)
        : [];
      if (query.state === 'escalated') return { waiting: waiting.map(item), dialogues: [], nextCursor: null };
      const rest: SQL[] = [...base, sql`${stateSql} <> 'escalated'`];
      if (query.state) rest.push(sql`${stateSql} = ${query.state}`);
      if (query.cursor) rest.push(afterCursor(dialogues.lastMessageAt, dialogues.id, decodeCursor(query.cursor, UUID), 'desc'));
      const rows = await db
        .select({ ...listColumns, cursorAt: cursorTime(dialogues.lastMessageAt) })
        .from(dialogues)
        .where(and(...rest))
        .orderBy(desc(dialogues.lastMessageAt), desc(dialogues.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.row.id);
      return { waiting: waiting.map(item), dialogues: page.map(item), nextCursor };
    },

    /** What the client will be told if the owner gives the dialogue back now (null: nothing is sent). */
    async releasePreview(agentId: string, dialogueId: string): Promise<{ text: string | null }> {
      const dialogue = await find(agentId, dialogueId);
      if (dialogue.mode === 'assistant') return { text: null };
      return { text: escalations.releaseNotice(dialogue.channel, dialogue.messagingAllowed) };
    },

    /** The owner's internal note in the transcript: stored only, sent to nobody (nor shown to the model). */
    async addNote(agentId: string, dialogueId: string, userId: string, text: string): Promise<TurnView> {
      await find(agentId, dialogueId);
      const body = text.trim();
      if (!body) throw new AppError('invalid_request_error', dialoguesMessages.noteEmpty);
      const [turn] = await db
        .insert(dialogueMessages)
        .values({ dialogueId, role: 'note', content: body.slice(0, MAX_TURN), operatorName: await ownerName(userId) })
        .returning();
      return turnView(turn!);
    },

    /**
     * What waits for the owner across their agents, for the main menu's badge: client turns not yet read
     * and dialogues handed to a person that nobody holds. Both read partial indexes (the unread turns of
     * each dialogue, the waiting dialogues), so the count stays cheap however long the transcripts grow.
     */
    async counts(userId: string): Promise<InboxCounts> {
      const owned = await db.select({ id: agents.id, name: agents.name }).from(agents).where(eq(agents.userId, userId)).orderBy(agents.createdAt, agents.id);
      if (owned.length === 0) return { unread: 0, escalated: 0, agents: [] };
      const rows = await db
        .select({
          agentId: dialogues.agentId,
          unread: sql<string>`coalesce(sum((select count(*) from dialogue_messages m
            where m.dialogue_id = ${OUTER_DIALOGUE_ID} and m.role = 'user' and m.id > ${OUTER_READ_ID})), 0)::text`,
          escalated: sql<string>`count(*) filter (where ${stateSql} = 'escalated')::text`,
        })
        .from(dialogues)
        .where(
          and(
            inArray(
              dialogues.agentId,
              owned.map((a) => a.id),
            ),
            isNotNull(dialogues.lastMessageAt),
            sql`(${dialogues.ownerReadMessageId} < (select max(m.id) from dialogue_messages m where m.dialogue_id = ${OUTER_DIALOGUE_ID} and m.role = 'user')
              or (${dialogues.mode} = 'operator' and ${dialogues.heldBy} is null))`,
          ),
        )
        .groupBy(dialogues.agentId);
      const byAgent = new Map(rows.map((r) => [r.agentId, { unread: Number(r.unread), escalated: Number(r.escalated) }]));
      const list = owned.map((a) => ({ agentId: a.id, name: a.name, ...(byAgent.get(a.id) ?? { unread: 0, escalated: 0 }) }));
      return {
        unread: list.reduce((sum, a) => sum + a.unread, 0),
        escalated: list.reduce((sum, a) => sum + a.escalated, 0),
        agents: list,
      };
    },

    async list(agentId: string, userId: string, query: DialogueListQuery): Promise<{ dialogues: DialogueView[]; nextCursor: string | null }> {
      // Only conversations: a row made by a consent event alone has no message yet.
      const filters: SQL[] = [eq(dialogues.agentId, agentId), isNotNull(dialogues.lastMessageAt)];
      if (query.state) filters.push(sql`${stateSql} = ${query.state}`);
      const search = searchFilter(query.q);
      if (search) filters.push(search);
      if (query.cursor) filters.push(afterCursor(dialogues.lastMessageAt, dialogues.id, decodeCursor(query.cursor, UUID), 'desc'));
      const rows = await db
        .select({ ...listColumns, cursorAt: cursorTime(dialogues.lastMessageAt) })
        .from(dialogues)
        .where(and(...filters))
        .orderBy(desc(dialogues.lastMessageAt), desc(dialogues.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.row.id);
      return { dialogues: page.map((r) => view(r, userId)), nextCursor };
    },

    /** Newest turns first; `cursor` pages back in time, `afterId` gives only turns newer than one already shown. */
    async transcript(agentId: string, dialogueId: string, query: TranscriptQuery): Promise<{ messages: TurnView[]; nextCursor: string | null; currency: string }> {
      // A bad cursor is the request's fault whatever the dialogue: refused before it is looked up.
      const cursor = query.cursor ? decodeCursor(query.cursor, DIGITS) : null;
      await find(agentId, dialogueId);
      const filters: SQL[] = [eq(dialogueMessages.dialogueId, dialogueId)];
      if (cursor) filters.push(afterCursor(dialogueMessages.createdAt, dialogueMessages.id, cursor, 'desc'));
      if (query.afterId !== undefined) filters.push(gt(dialogueMessages.id, query.afterId));
      // The usage records of the request that wrote an assistant turn (normally one; a retried event may add one).
      const usage = (expression: string) =>
        sql<string | null>`(select ${sql.raw(expression)} from usage_records u
          where u.agent_id = ${agentId} and u.request_id = ${OUTER_REQUEST_ID})`;
      const rows = await db
        .select({
          turn: dialogueMessages,
          cursorAt: cursorTime(dialogueMessages.createdAt),
          model: usage('max(u.model)'),
          promptTokens: usage('sum(u.prompt_tokens)::text'),
          completionTokens: usage('sum(u.completion_tokens)::text'),
          cachedTokens: usage('sum(u.cached_tokens)::text'),
          reasoningTokens: usage('sum(u.reasoning_tokens)::text'),
          costNano: usage('sum(u.cost_nano)::text'),
        })
        .from(dialogueMessages)
        .where(and(...filters))
        .orderBy(desc(dialogueMessages.createdAt), desc(dialogueMessages.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.turn.id);
      return {
        messages: page.map(({ turn, model, promptTokens, completionTokens, cachedTokens, reasoningTokens, costNano }) => {
          const view = turnView(turn);
          // An assistant turn whose request has its usage row carries the model's figures.
          if (turn.role !== 'assistant' || turn.requestId === null || model === null) return view;
          return {
            ...view,
            model,
            promptTokens: Number(promptTokens ?? 0),
            completionTokens: Number(completionTokens ?? 0),
            cachedTokens: Number(cachedTokens ?? 0),
            reasoningTokens: Number(reasoningTokens ?? 0),
            cost: nanoToUnits(BigInt(costNano ?? '0')),
          };
        }),
        nextCursor,
        currency,
      };
    },

    /** Everything up to the newest turn is seen: the unread count drops to zero. */
    async markRead(agentId: string, dialogueId: string, userId: string): Promise<DialogueView> {
      await find(agentId, dialogueId);
      await db
        .update(dialogues)
        .set({
          ownerReadMessageId: sql`greatest(${dialogues.ownerReadMessageId},
            coalesce((select max(m.id) from dialogue_messages m where m.dialogue_id = ${OUTER_DIALOGUE_ID}), 0))`,
        })
        .where(eq(dialogues.id, dialogueId));
      return get(agentId, dialogueId, userId);
    },

    async takeOver(agentId: string, dialogueId: string, userId: string): Promise<DialogueView> {
      await find(agentId, dialogueId);
      const holder = { key: holderKeyOf(userId), name: await ownerName(userId) };
      const outcome = await db.transaction((tx) => escalations.takeOver(tx, agentId, dialogueId, holder));
      if (!outcome.held) throw new AppError('conflict', dialoguesMessages.dialogueHeldByOther(outcome.holderName));
      worker.wake();
      return get(agentId, dialogueId, userId);
    },

    async release(agentId: string, dialogueId: string, userId: string): Promise<DialogueView> {
      const dialogue = await find(agentId, dialogueId);
      if (dialogue.mode === 'assistant') return get(agentId, dialogueId, userId);
      await db.transaction((tx) => escalations.releaseFromDashboard(tx, { agentId, dialogueId, channel: dialogue.channel, peerId: dialogue.peerId }));
      worker.wake();
      return get(agentId, dialogueId, userId);
    },

    /**
     * The owner's reply: taken over if nobody holds the dialogue, stored as an operator turn and queued
     * for VK in one transaction. `clientMessageId` is the client's id of the reply: a retried POST with
     * the same id finds the stored turn and queues nothing (201 for the first, 200 for a repeat).
     */
    async reply(
      agentId: string,
      dialogueId: string,
      userId: string,
      input: { text: string; clientMessageId: string },
    ): Promise<{ created: boolean; message: TurnView }> {
      const dialogue = await find(agentId, dialogueId);
      const text = input.text.trim();
      if (!text) throw new AppError('invalid_request_error', dialoguesMessages.dialogueReplyEmpty);
      const existing = async () => {
        const [turn] = await db
          .select()
          .from(dialogueMessages)
          .where(and(eq(dialogueMessages.dialogueId, dialogueId), eq(dialogueMessages.clientMessageId, input.clientMessageId)))
          .limit(1);
        return turn;
      };
      const repeated = await existing();
      if (repeated) return { created: false, message: turnView(repeated) };
      if (dialogue.channel !== SOCIAL_CHANNEL) throw new AppError('conflict', dialoguesMessages.dialogueNoChannel);
      if (dialogue.messagingAllowed === false) throw new AppError('conflict', dialoguesMessages.dialogueClientDenied);
      if (!(await socialSettings.load(agentId).catch(() => null))) throw new AppError('conflict', dialoguesMessages.dialogueNoChannel);
      const name = await ownerName(userId);
      const result = await db.transaction(async (tx) => {
        const [before] = await tx.select({ heldBy: dialogues.heldBy }).from(dialogues).where(eq(dialogues.id, dialogueId)).limit(1);
        const holder = { key: holderKeyOf(userId), name };
        if (before?.heldBy !== holder.key) {
          const held = await escalations.takeOver(tx, agentId, dialogueId, holder);
          if (!held.held) throw new AppError('conflict', dialoguesMessages.dialogueHeldByOther(held.holderName));
        }
        const [turn] = await tx
          .insert(dialogueMessages)
          .values({ dialogueId, role: 'operator', content: text.slice(0, MAX_TURN), operatorName: name, clientMessageId: input.clientMessageId })
          .onConflictDoNothing({ target: [dialogueMessages.dialogueId, dialogueMessages.clientMessageId] })
          .returning();
        // Two copies of one POST at once: the other one stored (and queued) it.
        if (!turn) return null;
        await queueSocialMessage(tx, { agentId, peerId: Number(dialogue.peerId), text });
        await tx.update(dialogues).set({ lastMessageAt: new Date(), updatedAt: new Date() }).where(eq(dialogues.id, dialogueId));
        return turn;
      });
      if (!result) {
        const turn = await existing();
        if (!turn) throw new AppError('conflict', errorMessages.conflict);
        return { created: false, message: turnView(turn) };
      }
      worker.wake();
      return { created: true, message: turnView(result) };
    },

    /**
     * Deletes one client's dialogue on request (personal data): its turns, escalations with their
     * Telegram records and notifications, the client's VK events and the messages queued or sent to them.
     * Orders keep their number and total (the link to the dialogue is cleared by the foreign key).
     */
    async remove(agentId: string, dialogueId: string): Promise<void> {
      const dialogue = await find(agentId, dialogueId);
      await db.transaction(async (tx) => {
        const escalated = await tx.select({ id: escalationRows.id }).from(escalationRows).where(eq(escalationRows.dialogueId, dialogueId));
        if (escalated.length > 0) {
          await tx.delete(notifications).where(
            and(
              eq(notifications.agentId, agentId),
              eq(notifications.kind, 'escalation'),
              inArray(
                notifications.reference,
                escalated.map((e) => e.id),
              ),
            ),
          );
        }
        if (dialogue.channel === SOCIAL_CHANNEL) {
          await tx.delete(socialEvents).where(and(eq(socialEvents.agentId, agentId), eq(socialEvents.clientKey, dialogue.peerId)));
          await tx.delete(outbox).where(and(eq(outbox.agentId, agentId), eq(outbox.kind, SOCIAL_MESSAGE_KIND), eq(outbox.recipient, dialogue.peerId)));
        }
        await tx.delete(dialogues).where(eq(dialogues.id, dialogueId));
      });
    },
  };
}

function turnView(turn: typeof dialogueMessages.$inferSelect): TurnView {
  return {
    id: turn.id,
    author: AUTHOR_OF_ROLE[turn.role] ?? 'client',
    text: turn.content,
    at: turn.createdAt.toISOString(),
    operatorName: turn.role === 'operator' || turn.role === 'note' ? turn.operatorName : null,
    toolName: turn.role === 'tool' ? turn.toolName : null,
    buttons: turn.buttons?.map((row) => row.map((button) => button.label)) ?? null,
    tap: turn.kind === 'tap',
    unsent: turn.kind === 'unsent',
    model: null,
    promptTokens: null,
    completionTokens: null,
    cachedTokens: null,
    reasoningTokens: null,
    cost: null,
  };
}

export type Dialogues = ReturnType<typeof createDialogues>;
