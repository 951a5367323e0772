// query(…, { prepared: true }): the same rows as the statement run unprepared, whatever its parameters hold.
// On PGlite the parameters of a prepared statement travel as literals (src/db/pglite-prepared.ts), so quotes,
// backslashes and text that looks like SQL must come back as they went in.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { openDatabase, type DatabaseHandle } from '../../src/db/client';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

let database: TestDatabase;
let handle: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
});
afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

const STATEMENT = `select $1::text as t, $2::int as i, $3::bigint as b, $4::boolean as f, $5::timestamptz as d,
  $6::jsonb ->> 'say' as j, $7::text as n, $8::double precision as x`;

test('a prepared statement answers as the unprepared one, the first time and every time after', async () => {
  const tricky = ["it's 'quoted'' twice", 'back\\slash at the end\\', "'); drop table users; --", '$$ dollar $tag$ quoted', 'кириллица и эмодзи 🙂', ''];
  for (const text of tricky) {
    const params = [text, -42, 9_007_199_254_740_993n, true, '2026-11-29T10:00:00.123Z', JSON.stringify({ say: text }), null, 0.5];
    const plain = await handle.query(STATEMENT, params);
    for (let i = 0; i < 3; i++) expect(await handle.query(STATEMENT, params, { prepared: true })).toEqual(plain);
    expect(plain[0]!.t).toBe(text);
    expect(plain[0]!.j).toBe(text);
  }
  // PGlite has one session, so its prepared statements can be seen from any query.
  if (!database.databaseUrl) {
    const [seen] = await handle.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements where statement like '%$8::double precision as x%'`);
    expect(seen!.n).toBe(1);
  }
});

test('statements prepared at the same moment for the first time all run', async () => {
  const text = 'select $1::int + 1 as next';
  const answers = await Promise.all([1, 2, 3, 4].map((n) => handle.query<{ next: number }>(text, [n], { prepared: true })));
  expect(answers.map((rows) => rows[0]!.next)).toEqual([2, 3, 4, 5]);
});

test('a parameter PostgreSQL cannot hold is refused as without preparing', async () => {
  const text = 'select $1::text as t';
  const plain = await handle.query(text, ['a\0b']).then(
    () => 'ok',
    () => 'refused',
  );
  const prepared = await handle.query(text, ['a\0b'], { prepared: true }).then(
    () => 'ok',
    () => 'refused',
  );
  expect(prepared).toBe(plain);
  expect(await handle.query(text, ['fine'], { prepared: true })).toEqual([{ t: 'fine' }]);
});
