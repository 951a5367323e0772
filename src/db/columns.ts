// Column builders the tables share.
import { customType, timestamp } from 'drizzle-orm/pg-core';

export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
/** PostgreSQL's full-text document: only ever a generated column here, read through SQL. */
export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
