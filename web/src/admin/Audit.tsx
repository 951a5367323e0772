// The audit log: what every admin changed, newest first, paged — for the whole service or for one
// account or price pattern.
import type { ReactNode } from 'react';
import { api, type Outputs } from '../api';
import { Pager, useCursorPages } from '../components/Pager';
import { Button, Loading } from '../components/ui';
import { formatDateTime } from '../format';
import { useQuery } from '../hooks';
import { Link } from '../router';
import { auditActionLabels, auditFieldLabels } from '../texts';
import { AdminError } from './AdminError';

type AuditRow = Outputs['admin']['audit']['data'][number];

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'да' : 'нет';
  if (typeof value === 'string') {
    // Timestamps in the log are ISO strings; amounts are exact decimal strings and stay as they are.
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

/** Each field the row touched: «баланс: 3 → 103», or the new value alone when there was none before. */
function Changes({ row }: { row: AuditRow }) {
  const before = row.before ?? {};
  const after = row.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  if (fields.length === 0) return <>—</>;
  return (
    <ul className="changes">
      {fields.map((field) => {
        const had = field in before;
        const has = field in after;
        const label = auditFieldLabels[field] ?? field;
        let text: string;
        if (had && has) {
          const a = valueText(before[field]);
          const b = valueText(after[field]);
          text = a === b ? b : `${a} → ${b}`;
        } else if (has) text = valueText(after[field]);
        else text = `${valueText(before[field])} → удалено`;
        return (
          <li key={field}>
            <span className="muted">{label}:</span> {text}
          </li>
        );
      })}
    </ul>
  );
}

function target(row: AuditRow): ReactNode {
  if (row.targetType === 'user' && row.targetId) return <Link to={`/admin/users/${row.targetId}`}>Пользователь {row.targetId.slice(0, 8)}…</Link>;
  if (row.targetType === 'price') return row.targetId ? <code>{row.targetId}</code> : 'Таблица цен';
  return row.targetId ? `${row.targetType} ${row.targetId}` : row.targetType;
}

export function AuditTable({ targetId, pageSize = 50 }: { targetId?: string; pageSize?: number }) {
  const pages = useCursorPages();
  const list = useQuery(() => api.admin.audit.query({ limit: pageSize, cursor: pages.cursor, targetId }), [pages.cursor, targetId, pageSize]);
  const rows = list.data?.data ?? [];
  return (
    <div data-testid="audit-log">
      <div className="actions">
        <Button variant="secondary" onClick={list.reload} disabled={list.loading} aria-label="Обновить журнал действий">
          Обновить
        </Button>
      </div>
      <AdminError error={list.error} />
      {list.loading && !list.data ? <Loading text="Загружаем журнал…" /> : null}
      {list.data && rows.length === 0 ? <p className="muted">Записей нет.</p> : null}
      {rows.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="audit-table" aria-busy={list.loading}>
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
                    <Changes row={row} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pages={pages} nextCursor={list.data?.nextCursor} loading={list.loading} label="Страницы журнала" />
    </div>
  );
}

export function AuditScreen() {
  return (
    <section className="card" aria-labelledby="audit-title">
      <h2 id="audit-title">Журнал действий</h2>
      <p className="hint">Начисления, блокировки и изменения цен, новые первыми.</p>
      <AuditTable />
    </section>
  );
}
