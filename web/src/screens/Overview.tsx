// Balance and usage: the balance with its top-up (when the service takes them) and their history,
// spending by day and by model for a chosen period, and the latest requests with the prompt and the
// completion priced apart.
import { useMemo, useState } from 'react';
import { api, type Outputs } from '../api';
import { UsageChart, type DaySeries } from '../components/UsageChart';
import { Button, ErrorText, Loading } from '../components/ui';
import { formatDateTime, formatInt, formatMoney, localDay } from '../format';
import { useBillingConfig, useQuery } from '../hooks';
import { usageStatusLabels } from '../texts';
import { TopupHistory, TopupPanel } from './Topups';

type UsageRecord = Outputs['account']['usage']['data'][number];
type Summary = Outputs['account']['usageSummary'];

const PERIODS = [7, 30, 90] as const;
/** The latest requests shown under the chart. */
const RECENT = 20;

/** Sums of the period from the server (per day in this browser's time zone, and per model), and the latest requests. */
async function loadUsage(days: number): Promise<{ summary: Summary; records: UsageRecord[] }> {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  start.setDate(start.getDate() - (days - 1));
  const from = start.toISOString();
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const [summary, recent] = await Promise.all([
    api.account.usageSummary.query({ from, timeZone }),
    api.account.usage.query({ limit: RECENT, from }),
  ]);
  return { summary, records: recent.data };
}

function byDay(summary: Summary, days: number, metric: 'cost' | 'tokens'): DaySeries[] {
  const series = new Map<string, Map<string, number>>();
  const today = new Date();
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(today);
    d.setDate(today.getDate() - i);
    series.set(localDay(d), new Map());
  }
  for (const row of summary.days) {
    const models = series.get(row.day);
    if (!models) continue;
    models.set(row.model, (models.get(row.model) ?? 0) + (metric === 'cost' ? row.cost : row.totalTokens));
  }
  return [...series].map(([day, models]) => ({ day, values: Object.fromEntries(models) }));
}

export function OverviewScreen() {
  const balance = useQuery(() => api.account.balance.query(), []);
  const keys = useQuery(() => api.keys.list.query(), []);
  const [days, setDays] = useState<(typeof PERIODS)[number]>(30);
  const [metric, setMetric] = useState<'cost' | 'tokens'>('cost');
  const usage = useQuery(() => loadUsage(days), [days]);
  const billing = useBillingConfig();

  const keyNames = useMemo(() => new Map((keys.data?.keys ?? []).map((k) => [k.id, `${k.name} (${k.keyPrefix}…)`])), [keys.data]);
  const chart = useMemo(() => (usage.data ? byDay(usage.data.summary, days, metric) : []), [usage.data, days, metric]);
  const models = usage.data?.summary.models ?? [];
  // The «Не оплачено» column appears only when some request was not fully covered by the balance.
  const modelsUnpaid = models.some((m) => m.unpaid > 0);
  const recordsUnpaid = (usage.data?.records ?? []).some((r) => r.unpaid > 0);

  const refresh = () => {
    balance.reload();
    usage.reload();
  };

  return (
    <>
      <div className="page-head">
        <h1>Баланс и использование</h1>
        <Button variant="secondary" onClick={refresh} pending={balance.loading || usage.loading} pendingText="Обновляем…">
          Обновить
        </Button>
      </div>

      <section className="card balance" aria-labelledby="balance-title">
        <h2 id="balance-title">Баланс</h2>
        {balance.data ? (
          <p className="balance-value" data-testid="balance">
            {formatMoney(balance.data.balance)}
          </p>
        ) : balance.loading ? (
          <Loading />
        ) : null}
        <ErrorText error={balance.error} />
        <TopupPanel config={billing.data} />
      </section>

      <TopupHistory config={billing.data} />

      <section className="card" aria-labelledby="usage-title">
        <div className="section-head">
          <h2 id="usage-title">Использование по дням</h2>
          <div className="segmented" role="group" aria-label="Период">
            {PERIODS.map((p) => (
              <button key={p} type="button" aria-pressed={days === p} onClick={() => setDays(p)}>
                {p} дн.
              </button>
            ))}
          </div>
          <div className="segmented" role="group" aria-label="Показатель">
            <button type="button" aria-pressed={metric === 'cost'} onClick={() => setMetric('cost')}>
              Стоимость
            </button>
            <button type="button" aria-pressed={metric === 'tokens'} onClick={() => setMetric('tokens')}>
              Токены
            </button>
          </div>
        </div>
        <ErrorText error={usage.error} />
        {usage.loading && !usage.data ? <Loading /> : null}
        {usage.data ? (
          <>
            <dl className="totals" data-testid="usage-totals">
              <div>
                <dt>Запросов</dt>
                <dd>{formatInt(usage.data.summary.totals.requests)}</dd>
              </div>
              <div>
                <dt>Токенов</dt>
                <dd>{formatInt(usage.data.summary.totals.totalTokens)}</dd>
              </div>
              <div>
                <dt>Потрачено</dt>
                <dd>{formatMoney(usage.data.summary.totals.cost)}</dd>
              </div>
              <div>
                <dt>Запросы (вход)</dt>
                <dd>{formatMoney(usage.data.summary.totals.promptCost)}</dd>
              </div>
              <div>
                <dt>Ответы (выход)</dt>
                <dd>{formatMoney(usage.data.summary.totals.completionCost)}</dd>
              </div>
              {usage.data.summary.totals.unpaid > 0 ? (
                <div>
                  <dt>Не оплачено</dt>
                  <dd className="error-inline">{formatMoney(usage.data.summary.totals.unpaid)}</dd>
                </div>
              ) : null}
            </dl>
            <UsageChart series={chart} metric={metric} />

            <h3>По моделям</h3>
            {models.length === 0 ? (
              <p className="muted">За этот период запросов не было.</p>
            ) : (
              <div className="table-wrap">
                <table data-testid="usage-by-model">
                  <thead>
                    <tr>
                      <th scope="col">Модель</th>
                      <th scope="col" className="num">Запросов</th>
                      <th scope="col" className="num">Токенов</th>
                      <th scope="col" className="num">Цена запросов</th>
                      <th scope="col" className="num">Цена ответов</th>
                      {modelsUnpaid ? <th scope="col" className="num">Не оплачено</th> : null}
                      <th scope="col" className="num">Списано</th>
                    </tr>
                  </thead>
                  <tbody>
                    {models.map((m) => (
                      <tr key={m.model}>
                        <td>{m.model}</td>
                        <td className="num">{formatInt(m.requests)}</td>
                        <td className="num">{formatInt(m.totalTokens)}</td>
                        <td className="num">{formatMoney(m.promptCost)}</td>
                        <td className="num">{formatMoney(m.completionCost)}</td>
                        {modelsUnpaid ? <td className="num">{m.unpaid > 0 ? formatMoney(m.unpaid) : '—'}</td> : null}
                        <td className="num">{formatMoney(m.cost)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        ) : null}
      </section>

      <section className="card" aria-labelledby="recent-title">
        <h2 id="recent-title">Последние запросы</h2>
        {usage.data ? (
          usage.data.records.length === 0 ? (
            <p className="muted">Запросов пока нет. Создайте API-ключ и отправьте запрос к /v1/chat/completions.</p>
          ) : (
            <div className="table-wrap">
              <table data-testid="recent-requests">
                <thead>
                  <tr>
                    <th scope="col">Время</th>
                    <th scope="col">Модель</th>
                    <th scope="col">Ключ</th>
                    <th scope="col" className="num">Токены (запрос / ответ)</th>
                    <th scope="col" className="num">Цена запроса</th>
                    <th scope="col" className="num">Цена ответа</th>
                    {recordsUnpaid ? <th scope="col" className="num">Не оплачено</th> : null}
                    <th scope="col" className="num">Списано</th>
                    <th scope="col">Статус</th>
                  </tr>
                </thead>
                <tbody>
                  {usage.data.records.map((r) => (
                    <tr key={r.id}>
                      <td>{formatDateTime(r.createdAt)}</td>
                      <td>{r.model}</td>
                      <td>{r.keyId ? (keyNames.get(r.keyId) ?? '—') : r.agentId ? 'Агент' : '—'}</td>
                      <td className="num">
                        {formatInt(r.promptTokens)} / {formatInt(r.completionTokens)}
                      </td>
                      <td className="num">{formatMoney(r.promptCost)}</td>
                      <td className="num">{formatMoney(r.completionCost)}</td>
                      {recordsUnpaid ? <td className="num">{r.unpaid > 0 ? formatMoney(r.unpaid) : '—'}</td> : null}
                      <td className="num">{formatMoney(r.cost)}</td>
                      <td>{usageStatusLabels[r.status] ?? r.status}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        ) : usage.loading ? (
          <Loading />
        ) : null}
      </section>
    </>
  );
}
