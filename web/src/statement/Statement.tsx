// «Выписка» (/app/statement): every movement of the balance in a period with the running balance
// (GET /api/account/statement), the same as a CSV file, the счета на оплату issued before paying
// (Invoices.tsx), and the monthly акты as PDF files (GET /api/account/documents). Files need the session's
// JWT, so they are fetched and handed to the browser as downloads (usage/UsageExport.tsx).
import { useQuery } from '@tanstack/react-query';
import { apiError, useTRPC } from '../app/trpc';
import { useState, type FormEvent } from 'react';
import type { Outputs } from '../app/api';
import { Button, ErrorText, Field, Loading } from '../shared/ui';
import { formatMoney, formatDateTime, formatUtcDay, localDay } from '../shared/format';
import { RequisitesLink } from '../organizations/RequisitesLink';
import { FileDownload } from '../shared/FileDownload';
import { InvoicesSection } from './Invoices';

type Statement = Outputs['statement']['get'];
type DocumentMonth = Outputs['statement']['documents']['months'][number];

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The first day of this month and today, in this browser's calendar. */
function thisMonthPeriod() {
  const today = localDay(new Date());
  return { from: `${today.slice(0, 8)}01`, to: today };
}

function StatementTable({ statement }: { statement: Statement }) {
  const money = (value: number) => formatMoney(value, statement.currency, 'amount');
  return (
    <>
      <dl className="totals statement-totals" data-testid="statement-totals">
        <div>
          <dt>На начало периода</dt>
          <dd data-testid="statement-opening">{money(statement.opening)}</dd>
        </div>
        <div>
          <dt>Поступления</dt>
          <dd className="amount-in">{money(statement.credits)}</dd>
        </div>
        <div>
          <dt>Списания</dt>
          <dd className="amount-out">{money(statement.debits)}</dd>
        </div>
        <div>
          <dt>На конец периода</dt>
          <dd data-testid="statement-closing">{money(statement.closing)}</dd>
        </div>
      </dl>
      {statement.lines.length === 0 ? (
        <p className="muted">За этот период движений по счёту не было.</p>
      ) : (
        <div className="table-wrap">
          <table className="stack-table" data-testid="statement-table">
            <thead>
              <tr>
                <th scope="col">Дата</th>
                <th scope="col">Операция</th>
                <th scope="col" className="num">
                  Сумма
                </th>
                <th scope="col" className="num">
                  Баланс после
                </th>
              </tr>
            </thead>
            <tbody>
              {statement.lines.map((line, i) => (
                <tr key={`${line.at}-${line.kind}-${i}`} data-kind={line.kind}>
                  <td data-label="Дата">{line.requests !== null ? formatUtcDay(line.day) : formatDateTime(line.at)}</td>
                  <td data-label="Операция">
                    <div>
                      {line.title}
                      {line.detail ? <span className="cell-note muted">{line.detail}</span> : null}
                    </div>
                  </td>
                  <td data-label="Сумма" className={`num ${line.amount < 0 ? 'amount-out' : 'amount-in'}`}>
                    {line.amount > 0 ? '+' : ''}
                    {money(line.amount)}
                  </td>
                  <td data-label="Баланс после" className="num">
                    {money(line.balanceAfter)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="hint">
        Расходы на запросы показаны одной строкой за день; баланс после строки точен на конец каждого дня. Дни — в часовом поясе {statement.timeZone}.
      </p>
    </>
  );
}

function StatementSection() {
  const zone = browserZone();
  const [form, setForm] = useState(thisMonthPeriod);
  const [period, setPeriod] = useState(form);
  const trpc = useTRPC();
  const statement = useQuery(trpc.statement.get.queryOptions({ ...period, timeZone: zone }));
  const fields = apiError(statement.error)?.fields ?? {};
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setPeriod(form);
  };
  const csvUrl = `/api/account/statement/export?${new URLSearchParams({ ...period, timeZone: zone })}`;
  return (
    <section className="card" aria-labelledby="statement-title" data-testid="statement">
      <h2 id="statement-title">Движение средств</h2>
      <p className="hint">Стартовый бонус, пополнения, начисления оператора с причиной и расходы — всё, что меняло баланс.</p>
      <form className="inline-form" onSubmit={onSubmit} noValidate>
        <Field label="С" error={fields.from}>
          {(props) => <input {...props} type="date" name="from" value={form.from} onChange={(e) => setForm({ ...form, from: e.target.value })} />}
        </Field>
        <Field label="По" error={fields.to}>
          {(props) => <input {...props} type="date" name="to" value={form.to} onChange={(e) => setForm({ ...form, to: e.target.value })} />}
        </Field>
        <div className="actions">
          <Button type="submit" pending={statement.isFetching}>
            Показать
          </Button>
          <FileDownload url={csvUrl} label="Скачать CSV" testId="statement-csv" title="Выписка за период одним CSV-файлом" excel />
        </div>
      </form>
      <ErrorText error={apiError(statement.error)?.fields ? undefined : apiError(statement.error)} />
      {statement.isPending ? <Loading /> : null}
      {statement.data ? <StatementTable statement={statement.data} /> : null}
    </section>
  );
}

function MonthRow({ month, currency, ready }: { month: DocumentMonth; currency: string; ready: boolean }) {
  return (
    <tr data-month={month.month}>
      <th scope="row">
        {month.title}
        {month.current ? <span className="cell-note muted">текущий месяц: документы будут после его окончания</span> : null}
      </th>
      <td data-label="Оплачено" className="num">
        {formatMoney(month.paid, currency, 'amount')}
      </td>
      <td data-label="Оказано услуг" className="num">
        {formatMoney(month.spent, currency, 'amount')}
      </td>
      <td data-label="Документы">
        {!ready ? (
          <span className="muted">недоступны</span>
        ) : month.documents.length === 0 ? (
          <span className="muted">{month.current ? 'месяц ещё идёт' : 'не выпущены'}</span>
        ) : (
          <div className="row-actions">
            {month.documents.map((d) => (
              <FileDownload
                key={d.id}
                url={d.pdfUrl}
                label={`${d.kind === 'upd' ? 'УПД' : 'Акт'} № ${d.number}${d.status === 'superseded' ? ' (заменён)' : ''}, PDF`}
                testId={d.kind === 'act' && d.status === 'issued' ? `act-${month.month}` : `document-${d.id}`}
              />
            ))}
          </div>
        )}
      </td>
    </tr>
  );
}

function DocumentsSection() {
  const trpc = useTRPC();
  const docs = useQuery(trpc.statement.documents.queryOptions());
  return (
    <section className="card" aria-labelledby="documents-title" data-testid="documents">
      <h2 id="documents-title">Акты оказанных услуг</h2>
      <p className="hint">
        Акт — услуги, оказанные за месяц (месяцы — по московскому времени). Реквизиты вашей организации для документов указываются в <RequisitesLink />.
      </p>
      <ErrorText error={apiError(docs.error)} />
      {docs.isPending ? <Loading /> : null}
      {docs.data && !docs.data.requisitesReady ? (
        <p className="warning" role="status" data-testid="documents-unavailable">
          Документы пока недоступны: оператор сервиса ещё не указал реквизиты своей организации.
        </p>
      ) : null}
      {docs.data ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="documents-table">
            <thead>
              <tr>
                <th scope="col">Месяц</th>
                <th scope="col" className="num">
                  Оплачено
                </th>
                <th scope="col" className="num">
                  Оказано услуг
                </th>
                <th scope="col">Документы</th>
              </tr>
            </thead>
            <tbody>
              {docs.data.months.map((m) => (
                <MonthRow key={m.month} month={m} currency={docs.data!.currency} ready={docs.data!.requisitesReady} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

export function StatementScreen() {
  return (
    <>
      <div className="page-head">
        <h1>Выписка</h1>
      </div>
      <StatementSection />
      <InvoicesSection />
      <DocumentsSection />
    </>
  );
}
