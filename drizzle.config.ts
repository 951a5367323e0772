import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // Each feature (and each base folder with tables of its own, e.g. jobs/ for the outbox) keeps its tables
  // in its folder's tables.ts; drizzle-kit reads them all.
  schema: ['./src/*/tables.ts', './src/*/*/tables.ts'],
  out: './drizzle',
});
