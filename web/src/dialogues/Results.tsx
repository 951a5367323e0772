// The agent's results on its page: dialogues, messages, escalations, bookings, orders and payments,
// model spend over the last 7, 30 or 90 days; and the way into the «Диалоги» section.
import { useState } from 'react';
import { api } from '../api';
import { ErrorText, Loading } from '../components/ui';
import { formatAmount, formatInt } from '../format';
import { useQuery } from '../hooks';
import { Link } from '../router';
import { resultsTexts as t } from './texts';
import './dialogues.css';

const PERIODS = [7, 30, 90] as const;
const DAY_MS = 86_400_000;

export function AgentResults({ agentId }: { agentId: string }) {
  const [days, setDays] = useState<(typeof PERIODS)[number]>(30);
  const results = useQuery(() => api.dialogues.results.query({ agentId, from: new Date(Date.now() - days * DAY_MS).toISOString() }), [agentId, days]);
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
      {results.loading && !r ? <Loading /> : null}
      <ErrorText error={results.error} />
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
            <dd className="hint" data-testid="results-bookings-by">{t.bookingsBy(r.bookingsByModel, r.bookingsByButtons)}</dd>
          </div>
          <div>
            <dt>{t.orders}</dt>
            <dd>{formatInt(r.orders.created)}</dd>
            <dd className="hint" data-testid="results-orders-by-model">{t.ordersByModel(r.ordersByModel.created)}</dd>
          </div>
          <div>
            <dt>{t.paid}</dt>
            <dd>{r.orders.paidTotals.length === 0 ? t.none : r.orders.paidTotals.map((p) => formatAmount(Number(p.amount), p.currency, 2)).join(', ')}</dd>
          </div>
          <div>
            <dt>{t.spend}</dt>
            <dd>{formatAmount(r.modelSpend.cost, r.modelSpend.currency)}</dd>
            <dd className="hint">{t.requests(r.modelSpend.requests)}</dd>
          </div>
        </dl>
      ) : null}
    </section>
  );
}
