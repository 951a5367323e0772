// What the promo code tests share: an operator, campaigns made through the console's API, and — for the
// races — many accounts at once.
import { createJwtService } from '../../src/accounts/jwt';
import { call, registerAdmin, TEST_JWT_SECRET, type TestApp, uniqueEmail } from '../helpers/app';

export const ADMIN_EMAIL = 'promo-operator@example.com';
/** The env every promo test app starts with; the limits' own tests set theirs. */
export const PROMO_ENV = { ADMIN_EMAILS: ADMIN_EMAIL, PROMO_ATTEMPTS_PER_HOUR: '0', PROMO_ATTEMPTS_PER_HOUR_PER_ADDRESS: '0' };

export const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

export async function createCampaign(app: TestApp, adminToken: string, body: Record<string, unknown>) {
  const res = await call(app.url, 'POST', '/api/admin/promotions', {
    token: adminToken,
    body: { name: 'Весенняя акция', amount: 100, expiresAt: inDays(30), ...body },
  });
  if (res.status !== 201) throw new Error(`campaign creation failed: ${res.status} ${res.text}`);
  return res.body as { id: string; codes: string[]; [key: string]: unknown };
}

export const redeem = (app: TestApp, token: string, code: unknown, headers?: Record<string, string>) =>
  call(app.url, 'POST', '/api/billing/promo', { token, body: { code }, headers });

export const operator = (app: TestApp) => registerAdmin(app, ADMIN_EMAIL);

/**
 * `count` accounts with a dashboard token each, written straight into the database: registering thousands
 * through the API would spend minutes on password hashing, and these accounts only need to exist and hold
 * a token. They start at 0 with no ledger rows (Σ ledger = balance), one password hash shared by all.
 */
export async function bulkAccounts(app: TestApp, count: number): Promise<{ userId: string; token: string; email: string }[]> {
  const tag = uniqueEmail('bulk').split('@')[0]!;
  const rows = await app.sql<{ id: string; email: string }>(
    `insert into users (email, password_hash)
     select $1 || '-' || n || '@example.com', 'not-a-hash' from generate_series(1, $2::int) as n
     returning id, email`,
    [tag, count],
  );
  const jwt = createJwtService(TEST_JWT_SECRET);
  return Promise.all(rows.map(async (r) => ({ userId: r.id, email: r.email, token: await jwt.sign({ userId: r.id, email: r.email, generation: 0 }) })));
}
