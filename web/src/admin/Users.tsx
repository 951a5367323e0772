// Accounts, newest first, searched by a part of the e-mail and paged; each opens its detail.
import { apiError, useTRPC } from '../app/trpc';
import { useQuery } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { listUsersInput } from '@server/admin/input';
import { Pager, useCursorPages } from '../shared/Pager';
import { Button, Field, Loading } from '../shared/ui';
import { Money } from '../shared/Money';
import { formatDateTime } from '../shared/format';
import { useBillingConfig } from '../shared/billing-config';
import { Link } from '../app/router';
import { roleLabels } from '../shared/texts';
import { check } from '../shared/validate';
import { AdminError } from './AdminError';

const PAGE_SIZE = 20;

export function UsersScreen() {
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  const [error, setError] = useState<string | undefined>();
  const pages = useCursorPages();
  const currency = useBillingConfig().data?.currency;
  const trpc = useTRPC();
  const list = useQuery(trpc.admin.listUsers.queryOptions({ search: search || undefined, limit: PAGE_SIZE, cursor: pages.cursor }));
  // While another search's answer is on its way, the previous search's rows are not shown as if they matched.
  const answeredFor = useRef(search);
  if (list.data && !list.isPlaceholderData) answeredFor.current = search;
  const current = answeredFor.current === search ? list.data : undefined;
  const users = current?.data ?? [];

  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    const checked = check(listUsersInput, { search: text });
    if (!checked.ok) {
      setError(checked.errors.search ?? checked.message);
      return;
    }
    setError(undefined);
    setSearch(checked.data.search ?? '');
    pages.reset();
  };

  return (
    <section className="card" aria-labelledby="users-title" data-testid="admin-users">
      <h2 id="users-title">Пользователи</h2>
      <form className="inline-form" role="search" onSubmit={onSearch} noValidate>
        <Field label="Поиск по e-mail" hint="Часть адреса, регистр не важен" error={error}>
          {(props) => <input {...props} name="userSearch" type="search" value={text} onChange={(e) => setText(e.target.value)} />}
        </Field>
        <div className="actions">
          <Button type="submit" pending={list.isFetching && search === text.trim()} pendingText="Ищем…">
            Найти
          </Button>
          {search ? (
            <Button
              variant="secondary"
              onClick={() => {
                setText('');
                setSearch('');
                pages.reset();
              }}
            >
              Сбросить
            </Button>
          ) : null}
        </div>
      </form>

      <AdminError error={apiError(list.error)} />
      {list.isFetching && !current ? <Loading text="Загружаем пользователей…" /> : null}
      <p className="visually-hidden" role="status" aria-live="polite">
        {current && !list.isFetching ? `Найдено на странице: ${users.length}` : ''}
      </p>
      {current && users.length === 0 ? <p className="muted">{search ? `Пользователей с «${search}» в e-mail нет.` : 'Пользователей нет.'}</p> : null}
      {users.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table" data-testid="users-table" aria-busy={list.isFetching}>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Роль</th>
                <th scope="col">Группа цен</th>
                <th scope="col" className="num">
                  Баланс
                </th>
                <th scope="col" className="num">
                  Расход за месяц
                </th>
                <th scope="col">Зарегистрирован</th>
                <th scope="col">Состояние</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.id} data-user-id={u.id}>
                  <td data-label="E-mail" className="wrap-anywhere">
                    <Link to={`/admin/users/${u.id}`}>{u.email}</Link>
                  </td>
                  <td data-label="Роль">{roleLabels[u.role]}</td>
                  <td data-label="Группа цен">
                    <code>{u.priceGroup}</code>
                  </td>
                  <td data-label="Баланс" className="num">
                    <Money value={u.balance} currency={currency} kind="amount" />
                  </td>
                  <td data-label="Расход за месяц" className="num">
                    <Money value={u.spendThisMonth} currency={currency} />
                  </td>
                  <td data-label="Зарегистрирован">{formatDateTime(u.createdAt)}</td>
                  <td data-label="Состояние">
                    {u.blocked ? <span className="badge badge-off">Заблокирован</span> : <span className="badge badge-ok">Активен</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pages={pages} nextCursor={current?.nextCursor} loading={list.isFetching} label="Страницы пользователей" />
    </section>
  );
}
