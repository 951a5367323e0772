// The audit log: what every admin changed, newest first, paged — for the whole service (filtered by
// action, e-mail and period on the server) or for one account or price pattern. Accounts are named by
// e-mail; money reads as everywhere else on the dashboard («502,99 ₽», every digit on hover).
import { apiError, useTRPC } from '../app/trpc';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { AUDIT_ACTIONS } from '@server/admin/audit-actions';
import { auditInput } from '@server/admin/input';
import type { Outputs } from '../app/api';
import { Money } from '../shared/Money';
import { Pager, useCursorPages } from '../shared/Pager';
import { Button, Field, Loading } from '../shared/ui';
import { formatDateTime } from '../shared/format';
import { useBillingConfig } from '../shared/billing-config';
import { Link } from '../app/router';
import { auditActionTexts } from '@server/admin/texts';
import { check, type FieldErrors } from '../shared/validate';
import { AdminError } from './AdminError';

type AuditRow = Outputs['admin']['audit']['data'][number];

/** Fields holding money as exact decimal strings: shown as the dashboard shows money, every digit on hover. */
const MONEY_FIELDS = new Set(['balance', 'amount', 'spendLimit']);
const PRICE_FIELDS = new Set(['promptPerMillion', 'completionPerMillion']);

type AuditChange = AuditRow['changes'][number];

/** A money value of the raw row, as the dashboard's Money (kopecks, every digit on hover); null: not a sum. */
function moneyOf(change: AuditChange, value: unknown, currency: string | undefined): ReactNode | null {
  const amount = typeof value === 'string' || typeof value === 'number' ? Number(value) : Number.NaN;
  if (Number.isNaN(amount)) return null;
  return (
    <>
      <Money value={amount} currency={currency} kind="amount" />
      {PRICE_FIELDS.has(change.field) ? ' за 1 млн токенов' : null}
    </>
  );
}

/**
 * One of the server's lines («вес: 1 → 2»), its label muted. A sum is drawn from the raw value with the
 * dashboard's Money, so it reads and hovers as every other sum of the console.
 */
function ChangeLine({ row, change, currency }: { row: AuditRow; change: AuditChange; currency: string | undefined }) {
  const money = MONEY_FIELDS.has(change.field) || PRICE_FIELDS.has(change.field);
  const side = (values: AuditRow['before'], text: string | null): ReactNode =>
    text === null ? null : money ? (moneyOf(change, values?.[change.field], currency) ?? text) : text;
  const before = side(row.before, change.before);
  const after = side(row.after, change.after);
  let text: ReactNode;
  if (before === null) text = after;
  else if (after === null) text = <>{before} → удалено</>;
  else if (change.before === change.after) text = after;
  else
    text = (
      <>
        {before} → {after}
      </>
    );
  return (
    <>
      <span className="muted">{change.label}:</span> {text}
    </>
  );
}

/** Each field the row touched, as the server words it. */
function Changes({ row, currency }: { row: AuditRow; currency: string | undefined }) {
  if (row.changes.length === 0) return <>—</>;
  return (
    <ul className="changes">
      {row.changes.map((change) => (
        // A label is one field, or for a route one provider and one of its settings: unique within the row.
        <li key={change.label}>
          <ChangeLine row={row} change={change} currency={currency} />
        </li>
      ))}
    </ul>
  );
}

/**
 * The record by its name. An account links to its page; a record deleted since shows the last name the log
 * knows, «(удалён)», and its id in a detail (and on hover), the one place an id is still of use.
 */
function target(row: AuditRow): ReactNode {
  if (row.targetType === 'user' && row.targetId && row.targetExists) {
    return (
      <Link to={`/admin/users/${row.targetId}`} className="wrap-anywhere">
        {row.targetEmail ?? row.targetText}
      </Link>
    );
  }
  if (!row.targetExists && row.targetId) {
    return (
      <details className="audit-gone">
        <summary className="wrap-anywhere" title={`Идентификатор: ${row.targetId}`}>
          {row.targetText}
        </summary>
        <span className="muted">Идентификатор:</span> <code className="wrap-anywhere">{row.targetId}</code>
      </details>
    );
  }
  return <span className="wrap-anywhere">{row.targetText}</span>;
}

type AuditAction = (typeof AUDIT_ACTIONS)[number];

interface AuditFilters {
  action?: AuditAction;
  email?: string;
  from?: string;
  to?: string;
}

/** Action, e-mail and period: applied by the server, so every page of the log is filtered. */
function AuditFilterForm({ onApply }: { onApply(filters: AuditFilters): void }) {
  const [action, setAction] = useState('');
  const [email, setEmail] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const values = { action: action || undefined, email: email.trim() || undefined, from: from || undefined, to: to || undefined };
    const checked = check(auditInput, values);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    onApply(values as AuditFilters);
  };
  return (
    <form className="inline-form audit-filters" onSubmit={onSubmit} noValidate data-testid="audit-filters">
      <Field label="Действие" error={errors.action}>
        {(props) => (
          <select {...props} name="auditAction" value={action} onChange={(e) => setAction(e.target.value)}>
            <option value="">Все действия</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {auditActionTexts[a]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="E-mail" hint="Администратора или пользователя, можно часть" error={errors.email}>
        {(props) => <input {...props} name="auditEmail" type="search" inputMode="email" value={email} onChange={(e) => setEmail(e.target.value)} />}
      </Field>
      <Field label="Первый день" error={errors.from}>
        {(props) => <input {...props} name="auditFrom" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />}
      </Field>
      <Field label="Последний день" error={errors.to}>
        {(props) => <input {...props} name="auditTo" type="date" value={to} onChange={(e) => setTo(e.target.value)} />}
      </Field>
      <div className="actions">
        <Button type="submit">Найти</Button>
      </div>
    </form>
  );
}

export function AuditTable({ targetId, pageSize = 50, filters = {} }: { targetId?: string; pageSize?: number; filters?: AuditFilters }) {
  const pages = useCursorPages();
  const currency = useBillingConfig().data?.currency;
  const trpc = useTRPC();
  const list = useQuery(trpc.admin.audit.queryOptions({ limit: pageSize, cursor: pages.cursor, targetId, ...filters }));
  const rows = list.data?.data ?? [];
  return (
    <div data-testid="audit-log">
      <div className="actions">
        <Button variant="secondary" onClick={() => void list.refetch()} disabled={list.isFetching} aria-label="Обновить журнал действий">
          Обновить
        </Button>
      </div>
      <AdminError error={apiError(list.error)} />
      {list.isPending ? <Loading text="Загружаем журнал…" /> : null}
      {list.data && rows.length === 0 ? <p className="muted">Записей нет.</p> : null}
      {rows.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="audit-table" aria-busy={list.isFetching}>
            <thead>
              <tr>
                <th scope="col">Время</th>
                <th scope="col">Администратор</th>
                <th scope="col">Действие</th>
                <th scope="col">Объект</th>
                <th scope="col">Изменения</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id} data-action={row.action}>
                  <td data-label="Время">{formatDateTime(row.createdAt)}</td>
                  <td data-label="Администратор" className="wrap-anywhere">
                    {row.adminEmail}
                  </td>
                  <td data-label="Действие">{row.actionText}</td>
                  <td data-label="Объект">{target(row)}</td>
                  <td data-label="Изменения">
                    <Changes row={row} currency={currency} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pages={pages} nextCursor={list.data?.nextCursor} loading={list.isFetching} label="Страницы журнала" />
    </div>
  );
}

export function AuditScreen() {
  const [filters, setFilters] = useState<AuditFilters>({});
  return (
    <section className="card" aria-labelledby="audit-title">
      <h2 id="audit-title">Журнал действий</h2>
      <p className="hint">Начисления, блокировки, ключи пользователей, цены, провайдеры и маршруты, новые первыми.</p>
      <AuditFilterForm onApply={setFilters} />
      {/* A new filter starts again from the first page. */}
      <AuditTable key={JSON.stringify(filters)} filters={filters} />
    </section>
  );
}
