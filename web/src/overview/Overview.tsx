// Balance and usage: the balance with its top-up (when the service takes them), the promo code field, and the top-ups' history,
// spending by day and by model for a chosen period, and the latest requests with the prompt and the
// completion priced apart, paged and filtered by key and model. Money is shown with the balance
// currency; the balance and the first page of requests refresh themselves every REFRESH_MS.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { apiError, useTRPC } from '../app/trpc';
import { useMemo, useState } from 'react';
import type { Outputs } from '../app/api';
import { ModelPrices } from '../shared/ModelPrices';
import { Money } from '../shared/Money';
import { ModelName } from '../shared/ModelName';
import { Pager, useCursorPages } from '../shared/Pager';
import { UsageChart, type DaySeries } from '../usage/UsageChart';
import { Button, ErrorText, Loading } from '../shared/ui';
import { formatDateTime, formatInt, localDay } from '../shared/format';
import { useBillingConfig } from '../shared/billing-config';
import { REFRESH_MS } from '../shared/refresh';
import { usageStatusLabels } from '../shared/texts';
import { TopupHistory, TopupPanel } from '../billing/Topups';
import { PromoPanel } from '../billing/Promo';
import { AutoTopupSection } from '../billing/AutoTopup';
import { UsageExportButton, usagePeriodStart } from '../usage/UsageExport';
import { tokenPartsText } from '../usage/token-parts';
import { FirstSteps } from './FirstSteps';
import { ReferralInvite } from '../referrals/ReferralInvite';
import { useActiveOrganization } from '../app/organization';
import { can } from '../organizations/texts';

type UsageRecord = Outputs['account']['usage']['data'][number];
type Summary = Outputs['account']['usageSummary'];

const PERIODS = [7, 30, 90] as const;
/** The latest requests shown per page under the chart. */
const RECENT = 20;

/** The period asked for the sums: per day in this browser's time zone, and per model. */
function summaryInput(days: number): { from: string; timeZone: string } {
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  return { from: usagePeriodStart(days), timeZone };
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
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // In an organisation the screen holds what the member's role may see: a developer their keys' usage and
  // no balance, an accountant the balance, top-ups and usage but no keys (app/organization.ts).
  const organization = useActiveOrganization();
  const role = organization?.role ?? null;
  const showBalance = can(role, 'balance');
  const showUsage = can(role, 'usage');
  const showKeys = can(role, 'keys');
  const showTopups = can(role, 'topups');
  // The balance and the first page of requests follow the API's use without a click, while the tab is seen.
  const balance = useQuery(trpc.account.balance.queryOptions(undefined, { refetchInterval: REFRESH_MS, enabled: showBalance }));
  // The pending bonus lands when the mailed link is opened, maybe in another tab: asked as often as the balance.
  // It is the person's own: not asked in an organisation.
  const me = useQuery(trpc.auth.me.queryOptions(undefined, { refetchInterval: REFRESH_MS, enabled: organization === null }));
  const keys = useQuery(trpc.keys.list.queryOptions(undefined, { enabled: showKeys }));
  const [days, setDays] = useState<(typeof PERIODS)[number]>(30);
  const [metric, setMetric] = useState<'cost' | 'tokens'>('cost');
  // Fixed when the period is chosen: a start recomputed at every render would be a new query each time.
  const period = useMemo(() => summaryInput(days), [days]);
  const summary = useQuery(trpc.account.usageSummary.queryOptions(period, { enabled: showUsage }));
  const billing = useBillingConfig();
  const [keyFilter, setKeyFilter] = useState('');
  const [modelFilter, setModelFilter] = useState('');
  const pages = useCursorPages();
  const onFirstPage = pages.number === 1;
  const recent = useQuery(
    trpc.account.usage.queryOptions(
      { limit: RECENT, cursor: pages.cursor, keyId: keyFilter || undefined, model: modelFilter || undefined },
      { refetchInterval: onFirstPage ? REFRESH_MS : false, enabled: showUsage },
    ),
  );
  const currency = balance.data?.currency ?? billing.data?.currency;

  const keyNames = useMemo(() => new Map((keys.data?.keys ?? []).map((k) => [k.id, `${k.name} (${k.keyPrefix}…)`])), [keys.data]);
  const chart = useMemo(() => (summary.data ? byDay(summary.data, days, metric) : []), [summary.data, days, metric]);
  const models = summary.data?.models ?? [];
  const records: UsageRecord[] = recent.data?.data ?? [];
  const modelChoices = useMemo(
    () => [...new Set([...models.map((m) => m.model), ...records.map((r) => r.model), ...(modelFilter ? [modelFilter] : [])])].sort(),
    [models, records, modelFilter],
  );
  // The «Не оплачено» column appears only when some request was not fully covered by the balance.
  const modelsUnpaid = models.some((m) => m.unpaid > 0);
  const recordsUnpaid = records.some((r) => r.unpaid > 0);
  const money = (value: number) => <Money value={value} currency={currency} />;

  const refresh = () => {
    if (showBalance) void balance.refetch();
    if (!organization) void me.refetch();
    if (showUsage) {
      void summary.refetch();
      void recent.refetch();
    }
  };

  // The card shows the balance the redemption answered with at once, rather than waiting on a refetch that a
  // periodic one already in flight could answer with the balance from before the credit.
  const afterPromo = (newBalance: number) => {
    queryClient.setQueryData(trpc.account.balance.queryKey(), (old) => (old ? { ...old, balance: newBalance } : old));
    refresh();
  };

  return (
    <>
      <div className="page-head">
        <h1>{organization ? `${showBalance ? 'Баланс и использование' : 'Использование'}: «${organization.name}»` : 'Баланс и использование'}</h1>
        <Button variant="secondary" onClick={refresh} pending={balance.isFetching || summary.isFetching} pendingText="Обновляем…">
          Обновить
        </Button>
      </div>

      {organization ? null : <FirstSteps balance={balance.data?.balance} currency={currency} />}

      {showBalance ? (
        <section className="card balance" aria-labelledby="balance-title">
          <h2 id="balance-title">{organization ? 'Баланс организации' : 'Баланс'}</h2>
          {balance.data ? (
            <p className="balance-value" data-testid="balance">
              <Money value={balance.data.balance} currency={currency} kind="amount" />
            </p>
          ) : balance.isFetching ? (
            <Loading />
          ) : null}
          {me.data && me.data.pendingBonus > 0 ? (
            <p className="notice" data-testid="pending-bonus">
              Стартовый бонус <Money value={me.data.pendingBonus} currency={currency} kind="amount" /> ждёт подтверждения e-mail: откройте ссылку из письма.
            </p>
          ) : null}
          <ErrorText error={apiError(balance.error)} />
          <p className="hint" data-testid="balance-help">
            Каждый запрос к модели списывает с баланса цену токенов запроса и ответа (цены за 1 млн токенов — в разделе <a href="#prices-title">«Цены моделей»</a>).{' '}
            {billing.data?.enabled ? 'Пополнить баланс можно картой: кнопка «Пополнить» ниже.' : 'Чтобы пополнить баланс, напишите администратору сервиса.'} Когда
            баланс дойдёт до нуля, запросы по API-ключам отклоняются с сообщением «недостаточно средств на балансе», а агенты перестают отвечать, пока баланс не
            пополнен. Баланс обновляется сам раз в {REFRESH_MS / 1000} секунд.
          </p>
          {showTopups ? <TopupPanel config={billing.data} /> : null}
          <ReferralInvite />
          {/* Promo codes credit whoever may top up: a person, an organisation's owner and accountant. */}
          {showTopups ? <PromoPanel onRedeemed={afterPromo} /> : null}
        </section>
      ) : null}

      {showTopups ? <TopupHistory config={billing.data} /> : null}
      {showTopups && billing.data?.enabled ? <AutoTopupSection /> : null}

      {showUsage ? (
        <>
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
              <UsageExportButton days={days} keyId={keyFilter || undefined} model={modelFilter || undefined} />
            </div>
            <ErrorText error={apiError(summary.error)} />
            {summary.isPending ? <Loading /> : null}
            {summary.data ? (
              <>
                <dl className="totals" data-testid="usage-totals">
                  <div>
                    <dt>Запросов</dt>
                    <dd>{formatInt(summary.data.totals.requests)}</dd>
                  </div>
                  <div>
                    <dt>Токенов</dt>
                    <dd>{formatInt(summary.data.totals.totalTokens)}</dd>
                  </div>
                  <div>
                    <dt>Потрачено</dt>
                    <dd>{money(summary.data.totals.cost)}</dd>
                  </div>
                  <div>
                    <dt>Запросы (вход)</dt>
                    <dd>{money(summary.data.totals.promptCost)}</dd>
                  </div>
                  <div>
                    <dt>Ответы (выход)</dt>
                    <dd>{money(summary.data.totals.completionCost)}</dd>
                  </div>
                  {summary.data.totals.unpaid > 0 ? (
                    <div>
                      <dt>Не оплачено</dt>
                      <dd className="error-inline">{money(summary.data.totals.unpaid)}</dd>
                    </div>
                  ) : null}
                </dl>
                <UsageChart series={chart} metric={metric} currency={currency} />

                <h3>По моделям</h3>
                {models.length === 0 ? (
                  <p className="muted">За этот период запросов не было.</p>
                ) : (
                  <div className="table-wrap">
                    <table data-testid="usage-by-model" className="stack-table">
                      <thead>
                        <tr>
                          <th scope="col">Модель</th>
                          <th scope="col" className="num">
                            Запросов
                          </th>
                          <th scope="col" className="num">
                            Токенов
                          </th>
                          <th scope="col" className="num">
                            Цена запросов
                          </th>
                          <th scope="col" className="num">
                            Цена ответов
                          </th>
                          {modelsUnpaid ? (
                            <th scope="col" className="num">
                              Не оплачено
                            </th>
                          ) : null}
                          <th scope="col" className="num">
                            Списано
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {models.map((m) => (
                          <tr key={m.model}>
                            <td>
                              <strong>
                                <ModelName model={m.model} />
                              </strong>
                            </td>
                            <td className="num" data-label="Запросов">
                              {formatInt(m.requests)}
                            </td>
                            <td className="num" data-label="Токенов">
                              {formatInt(m.totalTokens)}
                            </td>
                            <td className="num" data-label="Цена запросов">
                              {money(m.promptCost)}
                            </td>
                            <td className="num" data-label="Цена ответов">
                              {money(m.completionCost)}
                            </td>
                            {modelsUnpaid ? (
                              <td className="num" data-label="Не оплачено">
                                {m.unpaid > 0 ? money(m.unpaid) : '—'}
                              </td>
                            ) : null}
                            <td className="num" data-label="Списано">
                              {money(m.cost)}
                            </td>
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
            <div className="section-head">
              <h2 id="recent-title">Последние запросы</h2>
              <label className="filter">
                Ключ
                <select
                  value={keyFilter}
                  data-testid="recent-key-filter"
                  onChange={(e) => {
                    pages.reset();
                    setKeyFilter(e.target.value);
                  }}
                >
                  <option value="">Все ключи</option>
                  {/* An accountant sees no keys: the filter offers none, and the list names none. */}
                  {(keys.data?.keys ?? []).map((k) => (
                    <option key={k.id} value={k.id}>
                      {k.name} ({k.keyPrefix}…){k.isActive ? '' : ', отозван'}
                    </option>
                  ))}
                </select>
              </label>
              <label className="filter">
                Модель
                <select
                  value={modelFilter}
                  data-testid="recent-model-filter"
                  onChange={(e) => {
                    pages.reset();
                    setModelFilter(e.target.value);
                  }}
                >
                  <option value="">Все модели</option>
                  {modelChoices.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <ErrorText error={apiError(recent.error)} />
            {recent.data ? (
              records.length === 0 ? (
                <p className="muted">
                  {keyFilter || modelFilter ? 'Нет запросов с такими условиями.' : 'Запросов пока нет. Создайте API-ключ и отправьте запрос к /v1/chat/completions.'}
                </p>
              ) : (
                <div className="table-wrap">
                  <table data-testid="recent-requests" className="stack-table recent-table">
                    <thead>
                      <tr>
                        <th scope="col">Время</th>
                        <th scope="col">Модель</th>
                        <th scope="col">Ключ</th>
                        <th scope="col" className="num">
                          Токены (запрос / ответ)
                        </th>
                        <th scope="col" className="num">
                          Цена запроса
                        </th>
                        <th scope="col" className="num">
                          Цена ответа
                        </th>
                        {recordsUnpaid ? (
                          <th scope="col" className="num">
                            Не оплачено
                          </th>
                        ) : null}
                        <th scope="col" className="num">
                          Списано
                        </th>
                        <th scope="col">Статус</th>
                      </tr>
                    </thead>
                    <tbody>
                      {records.map((r) => (
                        <tr key={r.id}>
                          <td data-label="Время">{formatDateTime(r.createdAt)}</td>
                          <td data-label="Модель">
                            <ModelName model={r.model} />
                          </td>
                          <td data-label="Ключ">{r.keyId ? (keyNames.get(r.keyId) ?? '—') : r.agentId ? 'Агент' : '—'}</td>
                          <td className="num" data-label="Токены (запрос / ответ)">
                            {formatInt(r.promptTokens)} / {formatInt(r.completionTokens)}
                            {tokenPartsText(r) ? (
                              <div className="muted" data-testid="token-parts">
                                {tokenPartsText(r)}
                              </div>
                            ) : null}
                          </td>
                          <td className="num" data-label="Цена запроса">
                            {money(r.promptCost)}
                          </td>
                          <td className="num" data-label="Цена ответа">
                            {money(r.completionCost)}
                          </td>
                          {recordsUnpaid ? (
                            <td className="num" data-label="Не оплачено">
                              {r.unpaid > 0 ? money(r.unpaid) : '—'}
                            </td>
                          ) : null}
                          <td className="num" data-label="Списано">
                            {money(r.cost)}
                          </td>
                          <td data-label="Статус" className={r.status.startsWith('refused_') ? 'status-refused' : undefined}>
                            {usageStatusLabels[r.status] ?? r.status}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )
            ) : recent.isFetching ? (
              <Loading />
            ) : null}
            <Pager pages={pages} nextCursor={recent.data?.nextCursor} loading={recent.isFetching} label="Страницы запросов" />
          </section>
        </>
      ) : null}

      <ModelPrices currency={currency} />
    </>
  );
}
