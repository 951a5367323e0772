// «Администрирование»: the operator's console under /app/admin — accounts (search, detail, credits,
// blocking), daily revenue and spend, the audit log, the price table and the price groups, the providers and
// routes that model requests go by, the requisites, the bank statements with the счета paid by transfer, and the
// promo campaigns. The navigation shows it to admins only; the server answers 403 to anyone else,
// and such an answer also makes the page ask again who the user is (the role may have been taken away
// while the page was open). On a phone its sections are one bar that scrolls sideways, and the site's own
// navigation waits behind «Меню» (App.tsx), so the two take one row each instead of ~400 px of wrapped links.
import { Loading } from '../shared/ui';
import { Link } from '../app/router';
import { RecheckRole } from './AdminError';
import { AuditScreen } from './Audit';
import { BankStatementsScreen } from './BankStatements';
import { PricesScreen } from './Prices';
import { PromotionScreen, PromotionsScreen } from './Promotions';
import { PriceGroupsScreen } from './PriceGroups';
import { RequisitesScreen } from './Requisites';
import { ProvidersScreen } from './Providers';
import { RoutesScreen } from './Routes';
import { StatsScreen } from './Stats';
import { UserScreen } from './User';
import { UsersScreen } from './Users';
import './admin.css';
import { intoView } from '../shared/row-scroll';

const SECTIONS = [
  { to: '/admin', label: 'Пользователи' },
  { to: '/admin/stats', label: 'Выручка и расход' },
  { to: '/admin/audit', label: 'Журнал действий' },
  { to: '/admin/prices', label: 'Цены' },
  { to: '/admin/price-groups', label: 'Группы цен' },
  { to: '/admin/providers', label: 'Провайдеры' },
  { to: '/admin/routes', label: 'Маршруты' },
  { to: '/admin/requisites', label: 'Реквизиты' },
  { to: '/admin/bank', label: 'Банковские выписки' },
  { to: '/admin/promotions', label: 'Промокоды' },
] as const;

function NoAccess() {
  return (
    <section className="card" aria-labelledby="no-access-title" data-testid="admin-no-access">
      <h1 id="no-access-title">Нет доступа</h1>
      <p>Раздел «Администрирование» доступен только администраторам.</p>
      <p>
        <Link to="/">На главную</Link>
      </p>
    </section>
  );
}

function Section({ path }: { path: string }) {
  if (path === '/admin' || path === '/admin/users') return <UsersScreen />;
  const user = /^\/admin\/users\/([^/]+)$/.exec(path);
  if (user) return <UserScreen key={user[1]} id={decodeURIComponent(user[1]!)} />;
  if (path === '/admin/stats') return <StatsScreen />;
  if (path === '/admin/audit') return <AuditScreen />;
  if (path === '/admin/prices') return <PricesScreen />;
  if (path === '/admin/price-groups') return <PriceGroupsScreen />;
  if (path === '/admin/providers') return <ProvidersScreen />;
  if (path === '/admin/routes') return <RoutesScreen />;
  if (path === '/admin/requisites') return <RequisitesScreen />;
  if (path === '/admin/bank') return <BankStatementsScreen />;
  if (path === '/admin/promotions') return <PromotionsScreen />;
  const promotion = /^\/admin\/promotions\/([^/]+)$/.exec(path);
  if (promotion) return <PromotionScreen key={promotion[1]} id={decodeURIComponent(promotion[1]!)} />;
  return (
    <section className="card">
      <h2>Страница не найдена</h2>
      <p>
        <Link to="/admin">К списку пользователей</Link>
      </p>
    </section>
  );
}

export function AdminScreen({ path, isAdmin, recheckRole }: { path: string; isAdmin: boolean | undefined; recheckRole(): void }) {
  if (isAdmin === undefined) return <Loading text="Проверяем права…" />;
  if (!isAdmin) return <NoAccess />;
  const current = (to: string) => (to === '/admin' ? path === '/admin' || path.startsWith('/admin/users') : path.startsWith(to));
  return (
    <RecheckRole.Provider value={recheckRole}>
      <div className="page-head">
        <h1>Администрирование</h1>
      </div>
      <nav className="subnav console-nav" aria-label="Разделы администрирования">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.to} ref={current(s.to) ? intoView : undefined}>
              <Link to={s.to} aria-current={current(s.to) ? 'page' : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <Section path={path} />
    </RecheckRole.Provider>
  );
}
