// Daily figures of the service (UTC days): revenue from top-ups, admins' credits, spend on models and
// the number of requests, with the period's totals; a chart of the days, the same numbers as a table
// (folded away) and as a CSV file.
import { useQuery } from '@tanstack/react-query';
import { apiError, useTRPC } from '../app/trpc';
import { useState, type FormEvent } from 'react';
import { dailyStatsInput } from '@server/admin/input';
import { Button, Field, Loading } from '../shared/ui';
import { Money } from '../shared/Money';
import { formatInt, formatUtcDay } from '../shared/format';
import { useBillingConfig } from '../shared/billing-config';
import { check, type FieldErrors } from '../shared/validate';
import { AdminError } from './AdminError';
import { FileDownload } from '../shared/FileDownload';
import { StatsChart } from './StatsChart';

const DAY_MS = 86_400_000;
const utcDay = (offsetDays: number) => new Date(Date.now() - offsetDays * DAY_MS).toISOString().slice(0, 10);

export function StatsScreen() {
  const [from, setFrom] = useState(() => utcDay(29));
  const [to, setTo] = useState(() => utcDay(0));
  const [range, setRange] = useState({ from, to });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | undefined>();
  const currency = useBillingConfig().data?.currency;
  const trpc = useTRPC();
  const stats = useQuery(trpc.admin.dailyStats.queryOptions(range));
  const money = (value: number) => <Money value={value} currency={currency} />;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const checked = check(dailyStatsInput, { from: from || undefined, to: to || undefined });
    if (!checked.ok) {
      setErrors(checked.errors);
      setFormError(checked.errors.from || checked.errors.to ? undefined : checked.message);
      return;
    }
    setErrors({});
    setFormError(undefined);
    setRange(checked.data);
  };

  const data = stats.data;
  return (
    <section className="card" aria-labelledby="stats-title">
      <h2 id="stats-title">Выручка и расход по дням</h2>
      <form className="inline-form" onSubmit={onSubmit} noValidate>
        <Field label="Первый день" error={errors.from}>
          {(props) => <input {...props} name="statsFrom" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />}
        </Field>
        <Field label="Последний день" error={errors.to}>
          {(props) => <input {...props} name="statsTo" type="date" value={to} onChange={(e) => setTo(e.target.value)} />}
        </Field>
        <div className="actions">
          <Button type="submit" pending={stats.isFetching} pendingText="Считаем…">
            Показать
          </Button>
        </div>
      </form>
      {formError ? (
        <p className="error" role="alert">
          {formError}
        </p>
      ) : null}
      <AdminError error={apiError(stats.error)} />
      {stats.isPending ? <Loading /> : null}
      {data ? (
        <>
          <dl className="totals" data-testid="stats-totals" aria-live="polite">
            <div>
              <dt>Выручка</dt>
              <dd>{money(data.totals.revenue)}</dd>
            </div>
            <div>
              <dt>Начисления</dt>
              <dd>{money(data.totals.credits)}</dd>
            </div>
            <div>
              <dt>Расход</dt>
              <dd>{money(data.totals.spend)}</dd>
            </div>
            <div>
              <dt>Запросов</dt>
              <dd>{formatInt(data.totals.requests)}</dd>
            </div>
          </dl>
          <p className="hint">
            Выручка — оплаченные пополнения; начисления — деньги, начисленные или списанные администраторами; расход — списания за запросы к моделям; маржа — расход
            минус стоимость у провайдеров.
          </p>
          <StatsChart days={data.days} currency={currency} />
          <div className="actions">
            <FileDownload
              url={`/api/admin/stats/daily/export?${new URLSearchParams({ from: data.from, to: data.to })}`}
              label="Скачать CSV"
              testId="csv-download"
              excel
            />
          </div>
          <details className="chart-table">
            <summary>Таблица по дням</summary>
            <div className="table-wrap">
              <table className="stack-table" data-testid="stats-table" aria-busy={stats.isFetching}>
                <thead>
                  <tr>
                    <th scope="col">День</th>
                    <th scope="col" className="num">
                      Выручка
                    </th>
                    <th scope="col" className="num">
                      Начисления
                    </th>
                    <th scope="col" className="num">
                      Расход
                    </th>
                    <th scope="col" className="num">
                      Запросов
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {[...data.days].reverse().map((d) => (
                    <tr key={d.day}>
                      <th scope="row" data-label="День" className="row-head">
                        {formatUtcDay(d.day)}
                      </th>
                      <td data-label="Выручка" className="num">
                        {money(d.revenue)}
                      </td>
                      <td data-label="Начисления" className="num">
                        {money(d.credits)}
                      </td>
                      <td data-label="Расход" className="num">
                        {money(d.spend)}
                      </td>
                      <td data-label="Запросов" className="num">
                        {formatInt(d.requests)}
                      </td>
                    </tr>
                  ))}
                </tbody>
                <tfoot>
                  <tr>
                    <th scope="row">Итого</th>
                    <td data-label="Выручка" className="num">
                      {money(data.totals.revenue)}
                    </td>
                    <td data-label="Начисления" className="num">
                      {money(data.totals.credits)}
                    </td>
                    <td data-label="Расход" className="num">
                      {money(data.totals.spend)}
                    </td>
                    <td data-label="Запросов" className="num">
                      {formatInt(data.totals.requests)}
                    </td>
                  </tr>
                </tfoot>
              </table>
            </div>
          </details>
        </>
      ) : null}
    </section>
  );
}
