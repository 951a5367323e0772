// The access matrix: every route an organisation's members reach, for each of its four roles, a member of
// ANOTHER organisation and a person in none, with the status each must get. The account's own routes act
// in the organisation through X-Conduit-Organization; the organisation's own routes name it in the path.
// docs/organizations.md prints the same table.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, registerUser, type TestApp } from '../helpers/app';
import { companyInput, joinAs, newOrganization, type OrganizationsSetup, useOrganizationsApp } from '../helpers/organizations';

setDefaultTimeout(60_000);

let setup: OrganizationsSetup;
let app: TestApp;
useOrganizationsApp((s) => {
  setup = s;
  app = s.app;
});

const CALLERS = ['owner', 'admin', 'developer', 'accountant', 'otherOrgMember', 'nobody'] as const;
type Caller = (typeof CALLERS)[number];
type Statuses = [owner: number, admin: number, developer: number, accountant: number, otherOrgMember: number, nobody: number];

interface Row {
  route: string;
  /** The request; `org` is the organisation's id. */
  method: string;
  path: (org: string) => string;
  body?: (org: string) => unknown;
  /** Sent with X-Conduit-Organization naming the organisation (the account's own routes). */
  header: boolean;
  expect: Statuses;
}

const period = 'from=2026-01-01&to=2026-01-31&timeZone=Europe/Moscow';
const FORBIDDEN_TO_STRANGERS = [404, 404] as const;

// owner, admin, developer, accountant, member of another organisation, no membership
const MATRIX: Row[] = [
  // Keys: owners and admins all, a developer their own, an accountant none.
  { route: 'keys list', method: 'GET', path: () => '/api/keys', header: true, expect: [200, 200, 200, 403, ...FORBIDDEN_TO_STRANGERS] },
  {
    route: 'keys create',
    method: 'POST',
    path: () => '/api/keys',
    body: () => ({ name: 'matrix' }),
    header: true,
    expect: [201, 201, 201, 403, ...FORBIDDEN_TO_STRANGERS],
  },
  // Usage: every role (a developer sees their own keys' only).
  { route: 'usage', method: 'GET', path: () => '/api/usage', header: true, expect: [200, 200, 200, 200, ...FORBIDDEN_TO_STRANGERS] },
  { route: 'usage summary', method: 'GET', path: () => `/api/usage/summary?${period}`, header: true, expect: [200, 200, 200, 200, ...FORBIDDEN_TO_STRANGERS] },
  { route: 'usage export', method: 'GET', path: () => '/api/usage/export', header: true, expect: [200, 200, 200, 200, ...FORBIDDEN_TO_STRANGERS] },
  // Balance, alerts, requisites to read: not a developer.
  { route: 'balance', method: 'GET', path: () => '/api/balance', header: true, expect: [200, 200, 403, 200, ...FORBIDDEN_TO_STRANGERS] },
  { route: 'alerts', method: 'GET', path: () => '/api/account/alerts', header: true, expect: [200, 200, 403, 200, ...FORBIDDEN_TO_STRANGERS] },
  { route: 'requisites', method: 'GET', path: () => '/api/account/requisites', header: true, expect: [200, 200, 403, 200, ...FORBIDDEN_TO_STRANGERS] },
  // Money documents: owners and accountants.
  { route: 'statement', method: 'GET', path: () => `/api/account/statement?${period}`, header: true, expect: [200, 403, 403, 200, ...FORBIDDEN_TO_STRANGERS] },
  {
    route: 'statement export',
    method: 'GET',
    path: () => `/api/account/statement/export?${period}`,
    header: true,
    expect: [200, 403, 403, 200, ...FORBIDDEN_TO_STRANGERS],
  },
  { route: 'documents', method: 'GET', path: () => '/api/account/documents', header: true, expect: [200, 403, 403, 200, ...FORBIDDEN_TO_STRANGERS] },
  { route: 'invoices', method: 'GET', path: () => '/api/account/invoices', header: true, expect: [200, 403, 403, 200, ...FORBIDDEN_TO_STRANGERS] },
  // Card top-ups are off in this app (no YooKassa): the roles that pass get that 400, the others their 403.
  { route: 'top-ups', method: 'GET', path: () => '/api/billing/topups', header: true, expect: [400, 403, 403, 400, ...FORBIDDEN_TO_STRANGERS] },
  // A person's own things never act on the organisation.
  {
    route: 'requisites change',
    method: 'PUT',
    path: () => '/api/account/requisites',
    body: () => ({ companyName: 'X' }),
    header: true,
    expect: [403, 403, 403, 403, ...FORBIDDEN_TO_STRANGERS],
  },
  { route: 'two-factor', method: 'GET', path: () => '/api/auth/2fa', header: true, expect: [403, 403, 403, 403, ...FORBIDDEN_TO_STRANGERS] },
  { route: 'sessions', method: 'GET', path: () => '/api/auth/sessions', header: true, expect: [403, 403, 403, 403, ...FORBIDDEN_TO_STRANGERS] },
  { route: 'agents', method: 'GET', path: () => '/api/agents', header: true, expect: [403, 403, 403, 403, ...FORBIDDEN_TO_STRANGERS] },
  // The organisation's own routes.
  { route: 'organisation', method: 'GET', path: (o) => `/api/organizations/${o}`, header: false, expect: [200, 200, 200, 200, 404, 404] },
  {
    route: 'organisation change',
    method: 'PUT',
    path: (o) => `/api/organizations/${o}`,
    body: () => companyInput('ООО «Матрица»'),
    header: false,
    expect: [200, 403, 403, 200, 404, 404],
  },
  { route: 'members', method: 'GET', path: (o) => `/api/organizations/${o}/members`, header: false, expect: [200, 200, 403, 403, 404, 404] },
  { route: 'journal', method: 'GET', path: (o) => `/api/organizations/${o}/audit`, header: false, expect: [200, 200, 403, 403, 404, 404] },
  {
    route: 'invite',
    method: 'POST',
    path: (o) => `/api/organizations/${o}/invites`,
    body: () => ({ email: `matrix-${crypto.randomUUID()}@example.com`, role: 'developer' }),
    header: false,
    expect: [201, 201, 403, 403, 404, 404],
  },
  {
    route: 'withdraw invitation',
    method: 'POST',
    path: (o) => `/api/organizations/${o}/invites/withdraw`,
    body: () => ({ email: 'nobody-invited@example.com' }),
    header: false,
    // A manager learns there is no such invitation; the others are refused before that.
    expect: [404, 404, 403, 403, 404, 404],
  },
];

describe('the access matrix', () => {
  let org: string;
  const tokens = {} as Record<Caller, string>;

  test('six callers: the four roles, a member of another organisation, a person in none', async () => {
    const created = await newOrganization(app, 'ООО «Матрица»');
    org = created.org.id;
    tokens.owner = created.owner.token;
    tokens.admin = (await joinAs(setup, tokens.owner, org, 'admin')).token;
    tokens.developer = (await joinAs(setup, tokens.owner, org, 'developer')).token;
    tokens.accountant = (await joinAs(setup, tokens.owner, org, 'accountant')).token;
    tokens.otherOrgMember = (await newOrganization(app, 'ООО «Чужая»')).owner.token;
    tokens.nobody = (await registerUser(app.url)).token;
  });

  for (const row of MATRIX) {
    test(`${row.method} ${row.route}`, async () => {
      const got: Record<string, number> = {};
      const want: Record<string, number> = {};
      for (const [i, caller] of CALLERS.entries()) {
        const res = await call(app.url, row.method, row.path(org), {
          token: tokens[caller],
          body: row.body?.(org),
          headers: row.header ? { 'x-conduit-organization': org } : {},
        });
        got[caller] = res.status;
        want[caller] = row.expect[i]!;
        if (res.status >= 400) expect(res.body.error.message).toMatch(/[А-Яа-яЁё]/);
      }
      expect(got).toEqual(want);
    });
  }

  test('a malformed organisation id in the header is 400; an unknown one is 404 like a foreign one', async () => {
    const malformed = await call(app.url, 'GET', '/api/balance', { token: tokens.owner, headers: { 'x-conduit-organization': 'acme' } });
    expect(malformed.status).toBe(400);
    const unknown = await call(app.url, 'GET', '/api/balance', { token: tokens.owner, headers: { 'x-conduit-organization': crypto.randomUUID() } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe(
      (await call(app.url, 'GET', '/api/balance', { token: tokens.nobody, headers: { 'x-conduit-organization': org } })).body.error.message,
    );
  });
});
