// The audit log: what every admin changed, newest first, paged — for the whole service (filtered by
// action, e-mail and period on the server) or for one account or price pattern. Accounts are named by
// e-mail; money reads as everywhere else on the dashboard («502,99 ₽», every digit on hover).
import { apiError, useTRPC } from '../app/trpc';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { AUDIT_ACTIONS } from '@server/admin/audit-actions';
import { auditInput } from '@server/admin/input';
import type { LimitReset } from '@server/keys/limits';
import type { Outputs } from '../app/api';
import { Money } from '../shared/Money';
import { Pager, useCursorPages } from '../shared/Pager';
import { Button, Field, Loading } from '../shared/ui';
import { formatDateTime } from '../shared/format';
import { useBillingConfig } from '../shared/billing-config';
import { Link } from '../app/router';
import { auditActionLabels, auditFieldLabels, limitResetLabels } from '../shared/texts';
import { check, type FieldErrors } from '../shared/validate';
import { AdminError } from './AdminError';

type AuditRow = Outputs['admin']['audit']['data'][number];

/** Fields holding money as exact decimal strings: shown as the dashboard shows money, every digit on hover. */
const MONEY_FIELDS = new Set(['balance', 'amount', 'spendLimit']);
const PRICE_FIELDS = new Set(['promptPerMillion', 'completionPerMillion']);

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'да' : 'нет';
  if (typeof value === 'string') {
    // Timestamps in the log are ISO strings; other texts stay as they are.
    if (/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))) return formatDateTime(value);
    return value;
  }
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    // An import lists its prices: their patterns say enough in a table cell.
    const patterns = value.map((v) => (v && typeof v === 'object' && 'pattern' in v ? String((v as { pattern: unknown }).pattern) : JSON.stringify(v)));
    return patterns.length === 0 ? 'нет' : `${patterns.length}: ${patterns.join(', ')}`;
  }
  return JSON.stringify(value);
}

/** A field's value: money rounded to kopecks with the exact sum on hover, anything else as text. */
function FieldValue({ field, value, currency }: { field: string; value: unknown; currency: string | undefined }) {
  const money = MONEY_FIELDS.has(field) || PRICE_FIELDS.has(field);
  const amount = typeof value === 'string' || typeof value === 'number' ? Number(value) : Number.NaN;
  if (field === 'limitReset' && typeof value === 'string') return <>{limitResetLabels[value as LimitReset] ?? value}</>;
  if (!money || Number.isNaN(amount)) return <>{field === 'spendLimit' && value === null ? 'без лимита' : valueText(value)}</>;
  return (
    <>
      <Money value={amount} currency={currency} kind="balance" />
      {PRICE_FIELDS.has(field) ? ' за 1 млн токенов' : null}
    </>
  );
}

/** Each field the row touched: «баланс: 3,00 ₽ → 103,00 ₽», or the new value alone when there was none before. */
function Changes({ row, currency }: { row: AuditRow; currency: string | undefined }) {
  const before = row.before ?? {};
  const after = row.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((f) => !HIDDEN_FIELDS.has(f));
  if (fields.length === 0) return <>—</>;
  const show = (field: string, value: unknown) => <FieldValue field={field} value={value} currency={currency} />;
  return (
    <ul className="changes">
      {fields.map((field) => {
        const had = field in before;
        const has = field in after;
        const label = auditFieldLabels[field] ?? field;
        let text: ReactNode;
        if (had && has) {
          text =
            JSON.stringify(before[field]) === JSON.stringify(after[field]) ? (
              show(field, after[field])
            ) : (
              <>
                {show(field, before[field])} → {show(field, after[field])}
              </>
            );
        } else if (has) text = show(field, after[field]);
        else text = <>{show(field, before[field])} → удалено</>;
        return (
          <li key={field}>
            <span className="muted">{label}:</span> {text}
          </li>
        );
      })}
    </ul>
  );
}

/** Ids the row names elsewhere (the key's id: its name and prefix are shown). */
const HIDDEN_FIELDS = new Set(['keyId']);

function target(row: AuditRow): ReactNode {
  if (row.targetType === 'user' && row.targetId) {
    return (
      <Link to={`/admin/users/${row.targetId}`} className="wrap-anywhere">
        {row.targetEmail ?? `Пользователь ${row.targetId.slice(0, 8)}…`}
      </Link>
    );
  }
  if (row.targetType === 'price') return row.targetId ? <code>{row.targetId}</code> : 'Таблица цен';
  return row.targetId ? `${row.targetType} ${row.targetId}` : row.targetType;
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
                {auditActionLabels[a] ?? a}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="E-mail" hint="Администратора или пользователя, можно часть" error={errors.email}>
        {(props) => <input {...props} name="auditEmail" type="search" inputMode="email" value={email} onChange={(e) => setEmail(e.target.value)} />}
      </Field>
      <Field label="С (день UTC)" error={errors.from}>
        {(props) => <input {...props} name="auditFrom" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />}
      </Field>
      <Field label="По (день UTC)" error={errors.to}>
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
                  <td data-label="Действие">{auditActionLabels[row.action] ?? row.action}</td>
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
      <p className="hint">Начисления, блокировки, ключи пользователей и изменения цен, новые первыми.</p>
      <AuditFilterForm onApply={setFilters} />
      {/* A new filter starts again from the first page. */}
      <AuditTable key={JSON.stringify(filters)} filters={filters} />
    </section>
  );
}
