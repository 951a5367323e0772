// The site root: a browser is sent to the dashboard, an API client gets the information document (http/site.route.ts).

/** True when the client names text/html (or XHTML) with a weight above zero, as browsers do. */
export function acceptsHtml(accept: string | null): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    if (type !== 'text/html' && type !== 'application/xhtml+xml') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/** The redirect's body, for a client that does not follow it. */
export const DASHBOARD_REDIRECT_HTML = '<!doctype html><meta charset="utf-8"><title>Conduit</title><a href="/app">Панель управления Conduit</a>';
