// The overview's line under the balance that points to «Рефералы», shown only while the operator pays for
// invitations (GET /api/referrals says enabled). Its own file: the overview is in the first load, the screen is not.
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../app/trpc';
import { Link } from '../app/router';
import { inviteText } from './texts';

/** A line under the balance pointing to the referral page, while the operator pays for invitations. */
export function ReferralInvite() {
  const trpc = useTRPC();
  const view = useQuery(trpc.referrals.overview.queryOptions({ limit: 1 }));
  if (!view.data?.enabled) return null;
  return (
    <p className="hint" data-testid="referral-invite">
      {inviteText(view.data.percent, view.data.months)}{' '}
      <Link to="/referrals" data-testid="referral-invite-link">
        Ссылка-приглашение и приглашённые
      </Link>
    </p>
  );
}
