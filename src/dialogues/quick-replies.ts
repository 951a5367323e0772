// The owner's quick replies: saved texts, theirs alone and usable in any of their agents' dialogues. Another
// user's reply is as unknown as a missing one (404), as for API keys.
import { and, asc, count, eq } from 'drizzle-orm';
import type { Database } from '../db/client';
import { AppError } from '../http/errors';
import { quickReplies } from './tables';
import { dialoguesMessages } from './texts';
import type { QuickReplyView } from './input';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Enough for every recurring answer of a salon or a shop; a list longer than this is no longer quick. */
export const MAX_QUICK_REPLIES = 200;

function view(row: typeof quickReplies.$inferSelect): QuickReplyView {
  return { id: row.id, title: row.title, text: row.text, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

export function createQuickReplies({ db }: { db: Database }) {
  const mine = (userId: string, id: string) => and(eq(quickReplies.userId, userId), eq(quickReplies.id, id));
  const notFound = () => new AppError('not_found', dialoguesMessages.quickReplyNotFound);

  return {
    async list(userId: string): Promise<QuickReplyView[]> {
      const rows = await db.select().from(quickReplies).where(eq(quickReplies.userId, userId)).orderBy(asc(quickReplies.title), asc(quickReplies.id));
      return rows.map(view);
    },

    async create(userId: string, input: { title: string; text: string }): Promise<QuickReplyView> {
      const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(quickReplies).where(eq(quickReplies.userId, userId));
      if (Number(n) >= MAX_QUICK_REPLIES) throw new AppError('invalid_request_error', dialoguesMessages.tooManyQuickReplies(MAX_QUICK_REPLIES));
      const [row] = await db.insert(quickReplies).values({ userId, title: input.title, text: input.text }).returning();
      return view(row!);
    },

    async update(userId: string, id: string, patch: { title?: string | undefined; text?: string | undefined }): Promise<QuickReplyView> {
      if (!UUID.test(id)) throw notFound();
      const set = { updatedAt: new Date(), ...(patch.title !== undefined ? { title: patch.title } : {}), ...(patch.text !== undefined ? { text: patch.text } : {}) };
      const [row] = await db.update(quickReplies).set(set).where(mine(userId, id)).returning();
      if (!row) throw notFound();
      return view(row);
    },

    async remove(userId: string, id: string): Promise<void> {
      if (!UUID.test(id)) throw notFound();
      const removed = await db.delete(quickReplies).where(mine(userId, id)).returning({ id: quickReplies.id });
      if (removed.length === 0) throw notFound();
    },
  };
}

export type QuickReplies = ReturnType<typeof createQuickReplies>;
