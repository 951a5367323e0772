// The page's frame: signed out, only the login and registration forms; signed in, the navigation and
// the screen for the current address.
// The first load carries the frame, the forms and the overview (where a session lands); every other screen
// is its own file, fetched when it is first opened (issue 41: the one 784 KB script is now split so the
// first load stays well under 250 KB compressed — docs/development.md has the figures).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState, type RefObject } from 'react';
import { InboxBadges, useInboxCounts } from '../dialogues/InboxBadges';
import { LoginScreen, RegisterScreen } from '../auth/Auth';
import { TopupReturnScreen } from '../billing/Topups';
import { ForgotPasswordScreen, ResetPasswordScreen } from '../auth/PasswordReset';
import { OverviewScreen } from '../overview/Overview';
import { Loading } from '../shared/ui';
import { intoView } from '../shared/row-scroll';
import { organizationKeys, organizationsApi, type OrganizationSummary, type OrganizationView } from '../organizations/client';
import { captureInvite, pendingInvite } from '../organizations/invite-token';
import { AccountSwitcher } from '../organizations/Switcher';
import { can, LEFT_ORGANIZATION_NOTICE, INVITE_SIGN_IN_NOTICE, type Capability } from '../organizations/texts';
import { OrganizationContext, setActiveOrganization, storedOrganizationId, storeOrganizationId, type ActiveOrganization } from './organization';
import { Link, navigate, usePath } from './router';
import { currentSession, endSession, onSessionChange, type Session } from './session';
import { useTRPC } from './trpc';

const AccountPage = lazy(() => import('../account/AccountPage').then((m) => ({ default: m.AccountPage })));
const AdminScreen = lazy(() => import('../admin/Admin').then((m) => ({ default: m.AdminScreen })));
const AgentPage = lazy(() => import('../agents/AgentPage').then((m) => ({ default: m.AgentPage })));
const AgentsScreen = lazy(() => import('../agents/Agents').then((m) => ({ default: m.AgentsScreen })));
const InboxScreen = lazy(() => import('../dialogues/Inbox').then((m) => ({ default: m.InboxScreen })));
const InviteScreen = lazy(() => import('../organizations/Invite').then((m) => ({ default: m.InviteScreen })));
const OrganizationScreen = lazy(() => import('../organizations/OrganizationPage').then((m) => ({ default: m.OrganizationScreen })));
const KeysScreen = lazy(() => import('../keys/Keys').then((m) => ({ default: m.KeysScreen })));
const ReferralsScreen = lazy(() => import('../referrals/Referrals').then((m) => ({ default: m.ReferralsScreen })));
const StatementScreen = lazy(() => import('../statement/Statement').then((m) => ({ default: m.StatementScreen })));

function useSession(): Session | null {
  const [session, setSession] = useState(currentSession);
  useEffect(() => onSessionChange((s) => setSession(s)), []);
  return session;
}

/**
 * The sections; in an organisation only those its role may use (`needs`: any of them), never the person's
 * own ones (`personal`): agents, dialogues, the account's security and profile.
 */
const NAV: readonly { to: string; label: string; needs?: readonly Capability[]; personal?: true }[] = [
  { to: '/', label: 'Баланс и использование', needs: ['balance', 'usage'] },
  { to: '/keys', label: 'API-ключи', needs: ['keys'] },
  { to: '/agents', label: 'Агенты', personal: true },
  { to: '/dialogues', label: 'Диалоги', personal: true },
  { to: '/statement', label: 'Выписка', needs: ['money'] },
  { to: '/organization', label: 'Организация' },
  { to: '/account', label: 'Аккаунт', personal: true },
];

/** Whether a section is open to the account in view (null: the person's own, where all are). */
function allowed(item: (typeof NAV)[number], organization: ActiveOrganization | null): boolean {
  if (!organization) return true;
  if (item.personal) return false;
  return !item.needs || item.needs.some((c) => can(organization.role, c));
}

/** The section an address belongs to, for the check above; the console and unknown addresses count as personal. */
function sectionOf(path: string): (typeof NAV)[number] | undefined {
  if (path === '/' || path === '' || path === '/topups' || path.startsWith('/topups/') || path === '/referrals') return NAV[0];
  if (INBOX_PATH.test(path)) return NAV.find((n) => n.to === '/dialogues');
  return NAV.find((n) => n.to !== '/' && (path === n.to || path.startsWith(`${n.to}/`))) ?? { to: path, label: '', personal: true };
}

/** The inbox's addresses: every agent's dialogues, or one agent's. */
const INBOX_PATH = /^\/dialogues(\/|$)|^\/agents\/[^/]+\/dialogues/;

/** Shown to admins only; the server answers 403 to anyone else who opens its address. */
const ADMIN_NAV = { to: '/admin', label: 'Администрирование' } as const;

function titleOf(path: string): string {
  if (path === '/login') return 'Вход';
  if (path === '/register') return 'Регистрация';
  if (path === '/forgot') return 'Восстановление пароля';
  if (path === '/reset') return 'Новый пароль';
  if (path.startsWith('/topups/')) return 'Пополнение баланса';
  if (path === '/topups') return NAV[0]!.label;
  if (path === '/statement') return 'Выписка';
  if (path === '/referrals') return 'Рефералы';
  if (path === '/invite') return 'Приглашение в организацию';
  if (path === '/organization') return 'Организация';
  if (path.startsWith('/admin')) return ADMIN_NAV.label;
  if (INBOX_PATH.test(path)) return 'Диалоги';
  return NAV.find((n) => n.to === path)?.label ?? 'Агент';
}

function Screen({
  path,
  isAdmin,
  recheckRole,
  organization,
  onJoined,
  onCreated,
  onLeft,
}: {
  path: string;
  isAdmin: boolean | undefined;
  recheckRole(): void;
  organization: ActiveOrganization | null;
  onJoined(organization: OrganizationView): void;
  onCreated(organization: OrganizationView): void;
  onLeft(): void;
}) {
  if (path === '/invite') return <InviteScreen onJoined={onJoined} />;
  if (path === '/organization') return <OrganizationScreen onCreated={onCreated} onLeft={onLeft} />;
  const section = sectionOf(path);
  if (organization && section && !allowed(section, organization))
    return (
      <section className="card" data-testid="not-in-organization">
        <h1>Раздел недоступен</h1>
        <p>
          В организации «{organization.name}» этот раздел недоступен. Переключитесь на «Личный» аккаунт вверху страницы или{' '}
          <Link to={allowed(NAV[0]!, organization) ? '/' : '/keys'}>перейдите к доступным разделам</Link>.
        </p>
      </section>
    );
  if (path === '/' || path === '') return <OverviewScreen />;
  if (path === '/keys') return <KeysScreen />;
  if (path === '/account') return <AccountPage />;
  if (path === '/statement') return <StatementScreen />;
  if (path === '/referrals') return <ReferralsScreen />;
  // The top-up link of the low-balance e-mail: the overview holds the top-up form.
  if (path === '/topups') return <OverviewScreen />;
  if (path === '/agents') return <AgentsScreen />;
  // Every agent's dialogues at /dialogues (one open at /dialogues/<agent>/<dialogue>); one agent's at its own address.
  const all = /^\/dialogues(?:\/([^/]+)\/([^/]+))?$/.exec(path);
  if (all)
    return (
      <InboxScreen
        key="all"
        scope={undefined}
        open={all[1] && all[2] ? { agentId: decodeURIComponent(all[1]), dialogueId: decodeURIComponent(all[2]) } : undefined}
      />
    );
  const dialogues = /^\/agents\/([^/]+)\/dialogues(?:\/([^/]+))?$/.exec(path);
  if (dialogues) {
    const agentId = decodeURIComponent(dialogues[1]!);
    return <InboxScreen key={agentId} scope={agentId} open={dialogues[2] ? { agentId, dialogueId: decodeURIComponent(dialogues[2]) } : undefined} />;
  }
  const agent = /^\/agents\/([^/]+)(?:\/([a-z]+))?$/.exec(path);
  if (agent) return <AgentPage key={agent[1]} id={decodeURIComponent(agent[1]!)} section={agent[2]} />;
  const topup = /^\/topups\/([^/]+)$/.exec(path);
  if (topup) return <TopupReturnScreen key={topup[1]} id={decodeURIComponent(topup[1]!)} />;
  if (path === '/admin' || path.startsWith('/admin/')) return <AdminScreen path={path} isAdmin={isAdmin} recheckRole={recheckRole} />;
  return (
    <section className="card">
      <h1>Страница не найдена</h1>
      <p>
        <Link to="/">На главную</Link>
      </p>
    </section>
  );
}

export function App() {
  const session = useSession();
  const path = usePath();
  const publicPath = path === '/login' || path === '/register' || path === '/forgot';
  // An invitation link (#/invite/<token>) waits in this tab through a sign-in or a registration.
  const [invite, setInvite] = useState(captureInvite);
  useEffect(() => {
    const onHash = () => setInvite(captureInvite());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    if (path === '/invite') setInvite(captureInvite());
  }, [path]);
  // A reset link may be opened in a browser that is signed in (as anyone): its page shows either way.
  const resetPath = path === '/reset';
  // Read at each render: the invitation screen forgets it once answered, then moves on to another address.
  const inviteWaiting = invite !== null && pendingInvite() !== null;

  useEffect(() => {
    // The address asked for is kept, so the login lands there rather than on the overview.
    if (!session && !publicPath && !resetPath) navigate(path === '/' ? '/login' : `/login?${new URLSearchParams({ next: path + window.location.search })}`, true);
    if (session && inviteWaiting && path !== '/invite') navigate('/invite', true);
    else if (session && publicPath) navigate('/', true);
  }, [session, publicPath, resetPath, path, inviteWaiting]);

  // After a move to another screen, keyboard and screen-reader users start at its content, not at the link.
  const mainRef = useRef<HTMLElement>(null);
  const firstPath = useRef(path);
  useEffect(() => {
    if (path !== firstPath.current) mainRef.current?.focus({ preventScroll: true });
    firstPath.current = '';
  }, [path]);

  useEffect(() => {
    document.title = `${titleOf(path)} — Conduit`;
  }, [path]);

  if (resetPath) return <ResetPasswordScreen />;
  if (!session)
    return (
      <>
        {invite && path !== '/forgot' ? (
          <p className="notice invite-notice" role="status" data-testid="invite-sign-in">
            {INVITE_SIGN_IN_NOTICE}
          </p>
        ) : null}
        {path === '/register' ? <RegisterScreen /> : path === '/forgot' ? <ForgotPasswordScreen /> : <LoginScreen />}
      </>
    );
  if (publicPath) return null;
  return <SignedIn session={session} path={path} mainRef={mainRef} />;
}

function SignedIn({ session, path, mainRef }: { session: Session; path: string; mainRef: RefObject<HTMLElement | null> }) {
  const trpc = useTRPC();
  // Asked again when the session changes (trpc.ts resets the cache then), as the token is not part of the key,
  // and when the tab gets the focus back: the e-mail change is confirmed on a page the mail opened, in
  // another tab, and the header must say the new address on return, without signing in again.
  const me = useQuery({ ...trpc.auth.me.queryOptions(), refetchOnWindowFocus: true });
  // The address the session began with until the server says what it is now.
  const email = me.data?.user.email ?? session.email;
  // Until the server has said who this is, the admin entry stays out of the navigation.
  const isAdmin = me.data ? me.data.user.role === 'admin' : me.error ? false : undefined;

  // The account in view: «Личный», or the organisation chosen last time once the person's memberships
  // confirm it (until then no screen asks for anything, so nothing is asked for the wrong account).
  const queryClient = useQueryClient();
  const organizations = useQuery({ queryKey: organizationKeys.list, queryFn: organizationsApi.list });
  const [chosen, setChosen] = useState(storedOrganizationId);
  const [notice, setNotice] = useState<string | null>(null);
  const settled = !organizations.isFetching && (organizations.data !== undefined || organizations.error !== null);
  const listed = organizations.data !== undefined;
  const membership = chosen ? organizations.data?.organizations.find((o) => o.id === chosen) : undefined;
  const organization: ActiveOrganization | null = membership ? { id: membership.id, name: membership.name, role: membership.role } : null;
  // Set while rendering, before the screens below ask: their calls carry the header from the first one.
  setActiveOrganization(organization);
  useEffect(() => {
    // Only a list that was read says the membership is gone; a failed read keeps the choice for the next visit.
    if (chosen && settled && listed && !membership) {
      storeOrganizationId(null);
      setChosen(null);
      setNotice(LEFT_ORGANIZATION_NOTICE);
    }
  }, [chosen, settled, listed, membership]);
  const choose = (id: string | null) => {
    storeOrganizationId(id);
    setNotice(null);
    // What was asked for one account is never shown for the other: the screens ask again.
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== organizationKeys.all[0] });
    setChosen(id);
  };
  /** A new membership (an invitation accepted, an organisation created): listed, chosen, and `to` opened. */
  const enter = (joined: OrganizationView, to: string) => {
    // Listed at once, so the check of the choice finds it before the list is asked again.
    queryClient.setQueryData(organizationKeys.list, (list: { organizations: OrganizationSummary[] } | undefined) => ({
      organizations: [...(list?.organizations ?? []).filter((o) => o.id !== joined.id), joined],
    }));
    choose(joined.id);
    void queryClient.invalidateQueries({ queryKey: organizationKeys.list });
    navigate(to, true);
  };
  const onJoined = (joined: OrganizationView) => enter(joined, can(joined.role, 'balance') || can(joined.role, 'usage') ? '/' : '/keys');
  // Its creator goes on to invite the members.
  const onCreated = (created: OrganizationView) => enter(created, '/organization');
  const onLeft = () => {
    choose(null);
    void queryClient.invalidateQueries({ queryKey: organizationKeys.list });
    navigate('/', true);
  };
  const waiting = chosen !== null && !organization && !settled;

  const base = isAdmin && !organization ? [...NAV, ADMIN_NAV] : NAV;
  const nav = base.filter((item) => allowed(item, organization));

  // In the console, a phone shows these sections behind «Меню»: the console's own bar is the one in view
  // (issue 41: two bars of wrapped links took ~400 px of the screen there).
  const inConsole = path === '/admin' || path.startsWith('/admin/');
  // Open at the address it was opened at: going to another section closes it.
  const [menuOpenAt, setMenuOpenAt] = useState<string | null>(null);
  const menuOpen = menuOpenAt === path;

  const inboxCounts = useInboxCounts(path);
  // An agent's dialogues belong to «Диалоги», not to «Агенты».
  const inInbox = INBOX_PATH.test(path);
  const current = (to: string) => (to === '/' ? path === '/' : to === '/dialogues' ? inInbox : !inInbox && path.startsWith(to));
  return (
    <>
      <a className="skip-link" href="#main">
        К содержимому
      </a>
      <header className={inConsole ? `topbar topbar-compact${menuOpen ? ' menu-open' : ''}` : 'topbar'}>
        <span className="brand">Conduit</span>
        {inConsole ? (
          <button
            type="button"
            className="btn btn-secondary nav-toggle"
            aria-expanded={menuOpen}
            aria-controls="main-nav"
            onClick={() => setMenuOpenAt(menuOpen ? null : path)}
          >
            Меню
          </button>
        ) : null}
        <nav id="main-nav" aria-label="Разделы">
          <ul>
            {nav.map((item) => (
              <li key={item.to} ref={current(item.to) ? intoView : undefined}>
                <Link to={item.to} aria-current={current(item.to) ? 'page' : undefined}>
                  {/* A developer sees no balance there: only their keys' usage. */}
                  {item.to === '/' && organization && !can(organization.role, 'balance') ? 'Использование' : item.label}
                  {item.to === '/dialogues' ? <InboxBadges counts={inboxCounts.data} /> : null}
                </Link>
              </li>
            ))}
            {inConsole ? (
              // The phone's console row has no room for the account's documentation link: it is in «Меню».
              <li className="nav-docs">
                <a href="/docs" target="_blank" rel="noopener">
                  Документация API
                </a>
              </li>
            ) : null}
          </ul>
        </nav>
        <div className="account">
          <AccountSwitcher organizations={organizations.data?.organizations ?? []} chosen={organization ? organization.id : null} onChoose={choose} />
          <span className="muted account-email" data-testid="account-email" title={email}>
            {email}
          </span>
          <a href="/docs" target="_blank" rel="noopener" data-testid="docs-link" className="docs-link">
            Документация API
          </a>
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() => {
              // Signing out is not a detour: the login form then leads to the overview, not back here.
              navigate('/login', true);
              endSession(null);
            }}
          >
            Выйти
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={mainRef} key={organization?.id ?? 'personal'}>
        {notice ? (
          <p className="notice" role="status" data-testid="organization-notice">
            {notice}
          </p>
        ) : null}
        <OrganizationContext.Provider value={organization}>
          <Suspense fallback={<Loading />}>
            {waiting ? (
              <Loading />
            ) : (
              <Screen
                path={path}
                isAdmin={isAdmin}
                recheckRole={() => void me.refetch()}
                organization={organization}
                onJoined={onJoined}
                onCreated={onCreated}
                onLeft={onLeft}
              />
            )}
          </Suspense>
        </OrganizationContext.Provider>
      </main>
    </>
  );
}
