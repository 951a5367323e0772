// The information document's `endpoints` are listed from the procedures' and raw routes' `info`: the forms
// clients read (methods on one path joined with |, paths with ", ", hints after the path) come from the rule.
import { describe, expect, test } from 'bun:test';
import { informationEndpoints } from '../../src/http/information';

describe('informationEndpoints', () => {
  test('joins methods on one path in a fixed order, paths in the order they come, and nests dotted keys', () => {
    expect(
      informationEndpoints([
        { method: 'POST', path: '/api/billing/topups', info: 'billing.topups' },
        { method: 'GET', path: '/api/billing/topups', info: 'billing.topups' },
        { method: 'GET', path: '/api/billing/topups/:id', info: 'billing.topups' },
        { method: 'DELETE', path: '/api/admin/prices', info: { key: 'admin.prices', query: '?pattern=' } },
        { method: 'PUT', path: '/api/admin/prices', info: 'admin.prices' },
        { method: 'GET', path: '/api/admin/prices', info: 'admin.prices' },
        { method: 'GET', path: '/api/unlisted' },
        { method: 'GET', path: '/health', info: 'health' },
      ]),
    ).toEqual({
      billing: { topups: 'GET|POST /api/billing/topups, GET /api/billing/topups/:id' },
      admin: { prices: 'DELETE /api/admin/prices?pattern=, GET|PUT /api/admin/prices' },
      health: 'GET /health',
    });
  });

  test('a route shown as other paths, listed first, or apart from the methods on its path', () => {
    expect(
      informationEndpoints([
        { method: 'GET', path: '/api/account/documents', info: 'documents' },
        { method: 'GET', path: '/api/account/documents/:month/:file', info: { key: 'documents', shownAs: ['/d/:month/invoice.pdf', '/d/:month/act.pdf'] } },
        { method: 'POST', path: '/api/auth/resend-verification', info: 'emailVerification' },
        { method: 'GET', path: '/api/auth/verify-email', info: { key: 'emailVerification', query: '?token=<t>', listedFirst: true } },
        { method: 'GET', path: '/api/account/requisites', info: 'customerRequisites' },
        { method: 'PUT', path: '/api/account/requisites', info: { key: 'customerRequisites', apart: true } },
      ]),
    ).toEqual({
      documents: 'GET /api/account/documents, GET /d/:month/invoice.pdf, GET /d/:month/act.pdf',
      emailVerification: 'GET /api/auth/verify-email?token=<t>, POST /api/auth/resend-verification',
      customerRequisites: 'GET /api/account/requisites, PUT /api/account/requisites',
    });
  });
});
