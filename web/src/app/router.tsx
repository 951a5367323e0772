// A small router over the History API: the page lives under /app and the server answers index.html
// for every /app/* path, so each screen has an address that survives a reload.
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

export const BASE = '/app';

function currentPath(): string {
  const path = window.location.pathname;
  const inside = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  return inside === '' ? '/' : inside;
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

/** Goes to a path inside the app ('/keys'); `replace` keeps the history entry count. */
export function navigate(to: string, replace = false): void {
  const url = BASE + (to === '/' ? '/' : to);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return path;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const go = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={BASE + (to === '/' ? '/' : to)} onClick={go} {...rest} />;
}
