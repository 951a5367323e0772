// Levels the metrics read from the database when scraped (not counted in memory: every instance sees them).
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client';

/** Outbox rows waiting to be sent, by kind (the partial index on pending rows keeps this cheap). */
export async function outboxBacklog(db: Database): Promise<{ kind: string; rows: number }[]> {
  const rows = rowsOf<{ kind: string; n: unknown }>(await db.execute(sql`select kind, count(*) as n from outbox where status = 'pending' group by kind`));
  return rows.map((r) => ({ kind: r.kind, rows: Number(r.n) }));
}
