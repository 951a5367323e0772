// GET /api/referrals: the referrer's page (JWT; an organisation's too, with X-Conduit-Organization).
import { z } from 'zod';
import { ORGANIZATION_ACCESS } from '../keys';
import { inject, router, userProcedure } from '../trpc/init';
import { referralsSlot } from './api';
import { referralsQuery, referralsView } from './input';
import { referralTexts } from './texts';

/** What these procedures use of the features. */
const own = inject((use) => ({ referrals: use(referralsSlot).referrals }));

export const referralsRouter = router({
  overview: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.balance,
      info: 'referrals',
      openapi: { method: 'GET', path: '/api/referrals', tags: ['account'], summary: referralTexts.summary, description: referralTexts.description },
    })
    .input(referralsQuery)
    .output(referralsView)
    .query(({ ctx, input }) => ctx.referrals.overview(ctx.principal.userId, input)),

  createLink: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.balance,
      info: 'referrals',
      openapi: { method: 'POST', path: '/api/referrals/link', tags: ['account'], summary: referralTexts.createLinkSummary },
    })
    .input(z.void())
    .output(referralsView)
    .mutation(({ ctx }) => ctx.referrals.createLink(ctx.principal.userId)),
});
