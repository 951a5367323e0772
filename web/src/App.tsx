// The page's frame: signed out, only the login and registration forms; signed in, the navigation and
// the screen for the current address.
import { useEffect, useRef, useState } from 'react';
import { AgentPage } from './screens/AgentPage';
import { AgentsScreen } from './screens/Agents';
import { LoginScreen, RegisterScreen } from './screens/Auth';
import { KeysScreen } from './screens/Keys';
import { OverviewScreen } from './screens/Overview';
import { Link, navigate, usePath } from './router';
import { currentSession, endSession, onSessionChange, type Session } from './session';

function useSession(): Session | null {
  const [session, setSession] = useState(currentSession);
  useEffect(() => onSessionChange((s) => setSession(s)), []);
  return session;
}

const NAV = [
  { to: '/', label: 'Баланс и использование' },
  { to: '/keys', label: 'API-ключи' },
  { to: '/agents', label: 'Агенты' },
] as const;

function Screen({ path }: { path: string }) {
  if (path === '/' || path === '') return <OverviewScreen />;
  if (path === '/keys') return <KeysScreen />;
  if (path === '/agents') return <AgentsScreen />;
  const agent = /^\/agents\/([^/]+)$/.exec(path);
  if (agent) return <AgentPage key={agent[1]} id={decodeURIComponent(agent[1]!)} />;
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
  const publicPath = path === '/login' || path === '/register';

  useEffect(() => {
    if (!session && !publicPath) navigate('/login', true);
    if (session && publicPath) navigate('/', true);
  }, [session, publicPath]);

  // After a move to another screen, keyboard and screen-reader users start at its content, not at the link.
  const mainRef = useRef<HTMLElement>(null);
  const firstPath = useRef(path);
  useEffect(() => {
    if (path !== firstPath.current) mainRef.current?.focus({ preventScroll: true });
    firstPath.current = '';
  }, [path]);

  useEffect(() => {
    const title = publicPath ? (path === '/login' ? 'Вход' : 'Регистрация') : (NAV.find((n) => n.to === path)?.label ?? 'Агент');
    document.title = `${title} — Conduit`;
  }, [path, publicPath]);

  if (!session) return path === '/register' ? <RegisterScreen /> : <LoginScreen />;
  if (publicPath) return null;

  const current = (to: string) => (to === '/' ? path === '/' : path.startsWith(to));
  return (
    <>
      <a className="skip-link" href="#main">
        К содержимому
      </a>
      <header className="topbar">
        <span className="brand">Conduit</span>
        <nav aria-label="Разделы">
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={current(item.to) ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">
          <span className="muted account-email" data-testid="account-email" title={session.email}>
            {session.email}
          </span>
          <button type="button" className="btn btn-secondary" onClick={() => endSession(null)}>
            Выйти
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={mainRef}>
        <Screen path={path} />
      </main>
    </>
  );
}
