// The dashboard page at /app: the Vite build in web/dist (scripts/build-web.ts makes it). Hashed
// assets are cached for good; index.html is revalidated on every load and answers every other /app/*
// path, so the page's own router owns those addresses.
import { existsSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, renderError } from './errors';
import { errorMessages } from './messages';

const DEFAULT_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

const PAGE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  // Inline style attributes colour the chart legend; scripts and connections stay same-origin.
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
};

const NOT_BUILT_HTML = `<!doctype html>
<html lang="ru"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conduit — панель не собрана</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1>Панель управления ещё не собрана</h1>
<p>Соберите её командой <code>npm run build:web</code> (или запустите сервер через <code>npm start</code>, он собирает панель сам) и обновите страницу.</p>
<p>API работает: описание — на <a href="/docs">/docs</a>.</p>
</body></html>
`;

export interface Dashboard {
  /** Answers GET /app and /app/<rest>; `rest` is the path after "/app/" (empty for /app itself). */
  serve(rest: string): Response;
}

export function createDashboard(distDir: string = DEFAULT_DIST): Dashboard {
  const index = join(distDir, 'index.html');

  function page(): Response {
    if (!existsSync(index)) {
      return new Response(NOT_BUILT_HTML, {
        status: 503,
        headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '10' },
      });
    }
    return new Response(Bun.file(index), {
      headers: { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' },
    });
  }

  // A missing asset is an unknown route like any other: the one error body, not a bare text.
  function notFound(): Response {
    return renderError(new AppError('not_found', errorMessages.routeNotFound), undefined, { 'cache-control': 'no-store' });
  }

  return {
    serve(rest) {
      let path: string;
      try {
        path = decodeURIComponent(rest);
      } catch {
        return notFound();
      }
      // Only the build's assets are files; every other address is a screen of the page.
      if (!path.startsWith('assets/')) return page();
      const clean = normalize(path);
      if (!clean.startsWith('assets/') || clean.includes('\0')) return notFound();
      const file = join(distDir, clean);
      if (!existsSync(file)) return notFound();
      return new Response(Bun.file(file), {
        headers: {
          'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
          // Vite names assets by their content hash: a changed file is a new name.
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        },
      });
    },
  };
}
