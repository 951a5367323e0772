// «Рефералы» (/app/referrals): the account's invitation link (made on request: POST /api/referrals/link),
// the terms in force, the accounts registered through it — their e-mails masked — and what each earned
// (GET /api/referrals). Explained, without a link, while the operator keeps payouts off (REFERRAL_PERCENT=0).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiError, useTRPC } from '../app/trpc';
import { Button, CopyValue, ErrorText, Loading } from '../shared/ui';
import { Money } from '../shared/Money';
import { Pager, useCursorPages } from '../shared/Pager';
import { formatDateTime, formatInt } from '../shared/format';
import { useActiveOrganization } from '../app/organization';
import { REFERRALS_OFF, referralStatusLabels, termsText } from './texts';

const PAGE = 20;

export function ReferralsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const organization = useActiveOrganization();
  const pages = useCursorPages();
  const view = useQuery(trpc.referrals.overview.queryOptions({ limit: PAGE, cursor: pages.cursor }));
  const create = useMutation(trpc.referrals.createLink.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.referrals.pathKey() }) }));

  if (view.isPending) return <Loading />;
  if (!view.data) return <ErrorText error={apiError(view.error)} />;
  const data = view.data;
  const money = (value: number) => <Money value={value} currency={data.currency} kind="amount" />;

  return (
    <>
      <div className="page-head">
        <h1>{organization ? `Рефералы: «${organization.name}»` : 'Рефералы'}</h1>
      </div>
      <section className="card" aria-labelledby="referral-link-title" data-testid="referral-link-section">
        <h2 id="referral-link-title">Ссылка-приглашение</h2>
        {data.enabled ? (
          <>
            <p data-testid="referral-terms">{termsText(data.percent, data.months)}</p>
            {data.link ? (
              <CopyValue value={data.link} label="Ссылка-приглашение" testId="referral-link" />
            ) : (
              <>
                <Button onClick={() => create.mutate()} pending={create.isPending} pendingText="Создаём…">
                  Создать ссылку-приглашение
                </Button>
                <ErrorText error={apiError(create.error)} />
              </>
            )}
          </>
        ) : (
          <p className="notice" data-testid="referrals-off">
            {REFERRALS_OFF}
          </p>
        )}
      </section>

      <section className="card" aria-labelledby="referred-title" data-testid="referred-section">
        <h2 id="referred-title">Приглашённые</h2>
        <dl className="totals">
          <div>
            <dt>Приглашено</dt>
            <dd data-testid="referred-count">{formatInt(data.referredCount)}</dd>
          </div>
          <div>
            <dt>Начислено всего</dt>
            <dd data-testid="referral-total">{money(data.totalEarned)}</dd>
          </div>
        </dl>
        {data.referred.length === 0 ? (
          <p className="muted">По вашей ссылке ещё никто не зарегистрировался.</p>
        ) : (
          <div className="table-wrap">
            <table className="stack-table" data-testid="referred-table">
              <thead>
                <tr>
                  <th scope="col">E-mail</th>
                  <th scope="col">Зарегистрирован</th>
                  <th scope="col">Начисления до</th>
                  <th scope="col">Статус</th>
                  <th scope="col" className="num">
                    Начислено
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.referred.map((r) => (
                  <tr key={`${r.email}-${r.registeredAt}`}>
                    <td data-label="E-mail">{r.email}</td>
                    <td data-label="Зарегистрирован">{formatDateTime(r.registeredAt)}</td>
                    <td data-label="Начисления до">{formatDateTime(r.paysUntil)}</td>
                    <td data-label="Статус">{referralStatusLabels[r.status]}</td>
                    <td data-label="Начислено" className="num">
                      {money(r.earned)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager pages={pages} nextCursor={data.nextCursor} loading={view.isFetching} label="Страницы приглашённых" />
      </section>
    </>
  );
}
