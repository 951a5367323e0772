// Balance and usage: spending by day and by model for a chosen period, and the latest requests.
import { useMemo, useState } from 'react';
import { api, type Outputs } from '../api';
import { UsageChart, type DaySeries } from '../components/UsageChart';
import { Button, ErrorText, Loading } from '../components/ui';
import { formatDateTime, formatInt, formatMoney, localDay } from '../format';
import { useQuery } from '../hooks';
import { usageStatusLabels } from '../texts';

type UsageRecord = Outputs['account']['usage']['data'][number];
type Totals = Outputs['account']['usage']['totals'];

const PERIODS = [7, 30, 90] as const;
/** The chart reads at most this many records (10 pages of 100); the totals always cover the period. */
const MAX_PAGES = 10;

async function loadUsage(days: number): Promise<{ records: UsageRecord[]; totals: Totals; truncated: boolean }> {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  start.setDate(start.getDate() - (days - 1));
  const records: UsageRecord[] = [];
  let cursor: string | undefined;
  let totals: Totals | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await api.account.usage.query({ limit: 100, from: start.toISOString(), ...(cursor ? { cursor } : {}) });
    totals ??= result.totals;
    records.push(...result.data);
    if (!result.nextCursor) return { records, totals, truncated: false };
    cursor = result.nextCursor;
  }
  return { records, totals: totals!, truncated: true };
}

function byDay(records: UsageRecord[], days: number, metric: 'cost' | 'tokens'): DaySeries[] {
  const series = new Map<string, Map<string, number>>();
  const today = new Date();
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(today);
    d.setDate(today.getDate() - i);
    series.set(localDay(d), new Map());
  }
  for (const r of records) {
    const models = series.get(localDay(new Date(r.createdAt)));
    if (!models) continue;
    models.set(r.model, (models.get(r.model) ?? 0) + (metric === 'cost' ? r.cost : r.totalTokens));
  }
  return [...series].map(([day, models]) => ({ day, values: Object.fromEntries(models) }));
}

function byModel(records: UsageRecord[]) {
  const rows = new Map<string, { model: string; requests: number; tokens: number; cost: number }>();
  for (const r of records) {
    const row = rows.get(r.model) ?? { model: r.model, requests: 0, tokens: 0, cost: 0 };
    row.requests += 1;
    row.tokens += r.totalTokens;
    row.cost += r.cost;
    rows.set(r.model, row);
  }
  return [...rows.values()].sort((a, b) => b.cost - a.cost || b.tokens - a.tokens);
}

export function OverviewScreen() {
  const balance = useQuery(() => api.account.balance.query(), []);
  const keys = useQuery(() => api.keys.list.query(), []);
  const [days, setDays] = useState<(typeof PERIODS)[number]>(30);
  const [metric, setMetric] = useState<'cost' | 'tokens'>('cost');
  const usage = useQuery(() => loadUsage(days), [days]);

  const keyNames = useMemo(() => new Map((keys.data?.keys ?? []).map((k) => [k.id, `${k.name} (${k.keyPrefix}…)`])), [keys.data]);
  const chart = useMemo(() => (usage.data ? byDay(usage.data.records, days, metric) : []), [usage.data, days, metric]);
  const models = useMemo(() => (usage.data ? byModel(usage.data.records) : []), [usage.data]);

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
      </section>

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
                <dd>{formatInt(usage.data.totals.requests)}</dd>
              </div>
              <div>
                <dt>Токенов</dt>
                <dd>{formatInt(usage.data.totals.totalTokens)}</dd>
              </div>
              <div>
                <dt>Потрачено</dt>
                <dd>{formatMoney(usage.data.totals.cost)}</dd>
              </div>
            </dl>
            <UsageChart series={chart} metric={metric} />
            {usage.data.truncated ? (
              <p className="hint">График построен по последним {formatInt(usage.data.records.length)} запросам периода.</p>
            ) : null}

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
                      <th scope="col" className="num">Стоимость</th>
                    </tr>
                  </thead>
                  <tbody>
                    {models.map((m) => (
                      <tr key={m.model}>
                        <td>{m.model}</td>
                        <td className="num">{formatInt(m.requests)}</td>
                        <td className="num">{formatInt(m.tokens)}</td>
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
                    <th scope="col" className="num">Стоимость</th>
                    <th scope="col">Статус</th>
                  </tr>
                </thead>
                <tbody>
                  {usage.data.records.slice(0, 20).map((r) => (
                    <tr key={r.id}>
                      <td>{formatDateTime(r.createdAt)}</td>
                      <td>{r.model}</td>
                      <td>{r.keyId ? (keyNames.get(r.keyId) ?? '—') : r.agentId ? 'Агент' : '—'}</td>
                      <td className="num">
                        {formatInt(r.promptTokens)} / {formatInt(r.completionTokens)}
                      </td>
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
