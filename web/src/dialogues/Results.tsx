// The agent's results on its page: dialogues, messages, escalations, bookings, orders and payments,
// model spend over the last 7, 30 or 90 days, the latest bookings and orders themselves (who, what, when,
// made by the buttons or the model); the funnel by week (Funnel.tsx); and the way into the «Диалоги» section.
import { useQuery } from '@tanstack/react-query';
import { apiError, useTRPC } from '../app/trpc';
import { useMemo, useState } from 'react';
import { ErrorText, Loading } from '../shared/ui';
import { formatMoney, formatDateTime, formatInt } from '../shared/format';
import { AgentFunnel } from './Funnel';
import { formatPhone } from './phone-format';
import { Link } from '../app/router';
import { resultsTexts as t } from './texts';
import './dialogues.css';

const PERIODS = [7, 30, 90] as const;

/** «01.12.2026, 11:00» from «2026-12-01T11:00:00+03:00»: the time as the company's booking system wrote it, in its own zone. */
function wallTime(datetime: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(datetime);
  return match ? `${match[3]}.${match[2]}.${match[1]}, ${match[4]}:${match[5]}` : datetime;
}
const DAY_MS = 86_400_000;

export function AgentResults({ agentId }: { agentId: string }) {
  const [days, setDays] = useState<(typeof PERIODS)[number]>(30);
  const trpc = useTRPC();
  // Fixed when the period is chosen: a start recomputed at every render would be a new query each time.
  const from = useMemo(() => new Date(Date.now() - days * DAY_MS).toISOString(), [days]);
  const results = useQuery(trpc.dialogues.results.queryOptions({ agentId, from }));
  const r = results.data;
  return (
    <section className="card" aria-labelledby="results-title" data-testid="agent-results">
      <div className="results-head">
        <h2 id="results-title">{t.title}</h2>
        <div className="segmented" role="group" aria-label={t.period}>
          {PERIODS.map((p) => (
            <button key={p} type="button" aria-pressed={p === days} onClick={() => setDays(p)}>
              {t.periods[p]}
            </button>
          ))}
        </div>
        <Link to={`/agents/${encodeURIComponent(agentId)}/dialogues`} className="btn btn-primary">
          {t.open}
        </Link>
      </div>
      {results.isPending ? <Loading /> : null}
      <ErrorText error={apiError(results.error)} />
      {r ? (
        <dl className="totals">
          <div>
            <dt>{t.dialogues}</dt>
            <dd data-testid="results-dialogues">{formatInt(r.dialogues)}</dd>
          </div>
          <div>
            <dt>{t.messages}</dt>
            <dd>{formatInt(r.messages.total)}</dd>
            <dd className="hint">{t.fromClients(r.messages.client)}</dd>
          </div>
          <div>
            <dt>{t.escalations}</dt>
            <dd>{formatInt(r.escalations)}</dd>
          </div>
          <div>
            <dt>{t.bookings}</dt>
            <dd>{formatInt(r.bookings)}</dd>
            <dd className="hint" data-testid="results-bookings-by">
              {t.bookingsBy(r.bookingsByModel, r.bookingsByButtons)}
            </dd>
          </div>
          <div>
            <dt>{t.orders}</dt>
            <dd>{formatInt(r.orders.created)}</dd>
            <dd className="hint" data-testid="results-orders-by-model">
              {t.ordersByModel(r.ordersByModel.created)}
            </dd>
          </div>
          <div>
            <dt>{t.paid}</dt>
            <dd>{r.orders.paidTotals.length === 0 ? t.none : r.orders.paidTotals.map((p) => formatMoney(Number(p.amount), p.currency, 'amount')).join(', ')}</dd>
          </div>
          <div>
            <dt>{t.spend}</dt>
            <dd>{formatMoney(r.modelSpend.cost, r.modelSpend.currency, 'amount')}</dd>
            <dd className="hint">{t.requests(r.modelSpend.requests)}</dd>
          </div>
        </dl>
      ) : null}
      <AgentFunnel agentId={agentId} />
      {r && r.recentBookings.length > 0 ? (
        <>
          <h3>{t.bookingsList}</h3>
          <table className="stack-table results-list" data-testid="results-bookings">
            <thead>
              <tr>
                <th>{t.client}</th>
                <th>{t.service}</th>
                <th>{t.specialist}</th>
                <th>{t.when}</th>
                <th>{t.source}</th>
              </tr>
            </thead>
            <tbody>
              {r.recentBookings.map((b) => (
                <tr key={b.id}>
                  <td data-label={t.client}>
                    {b.clientName} <span className="muted dialogue-phone">{formatPhone(b.clientPhone)}</span>
                  </td>
                  <td data-label={t.service}>{b.service}</td>
                  <td data-label={t.specialist}>{b.specialist}</td>
                  <td data-label={t.when}>{wallTime(b.datetime)}</td>
                  <td data-label={t.source}>{t.bookingSources[b.source] ?? b.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {r && r.recentOrders.length > 0 ? (
        <>
          <h3>{t.ordersList}</h3>
          <table className="stack-table results-list" data-testid="results-orders">
            <thead>
              <tr>
                <th>{t.order}</th>
                <th>{t.items}</th>
                <th className="num">{t.total}</th>
                <th>{t.client}</th>
                <th>{t.status}</th>
                <th>{t.source}</th>
              </tr>
            </thead>
            <tbody>
              {r.recentOrders.map((o) => (
                <tr key={o.id}>
                  <td data-label={t.order}>
                    {o.number} <span className="muted">{formatDateTime(o.createdAt)}</span>
                  </td>
                  <td data-label={t.items}>{o.items.map((i) => `${i.title} × ${i.quantity}`).join(', ')}</td>
                  <td data-label={t.total} className="num">
                    {formatMoney(Number(o.total), o.currency, 'amount')}
                  </td>
                  <td data-label={t.client}>{o.clientPhone ? formatPhone(o.clientPhone) : t.none}</td>
                  <td data-label={t.status}>{t.orderStatuses[o.status] ?? o.status}</td>
                  <td data-label={t.source}>{t.orderSources[o.source] ?? o.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
