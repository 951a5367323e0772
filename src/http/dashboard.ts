// The dashboard page at /app: the Vite build in web/dist (scripts/build-web.ts makes it). Hashed
// assets are cached for good; index.html is revalidated on every load and answers every other /app/*
// path, so the page's own router owns those addresses.
// Text files (the script, styles, the page) go out brotli- or gzip-compressed when the client accepts it
// (the script is ~780 KB raw, ~180 KB in brotli): the build writes `<file>.br` and `<file>.gz` beside each
// one at the best levels; a file without them (a build by hand with `vite build`) is compressed here on its
// first request at a fast level and kept in memory.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
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

/** The files worth compressing: text. Images, fonts and wasm are compressed already or not served at all. */
export const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.map']);

export type ContentEncoding = 'br' | 'gzip';

/**
 * The encoding to send for an Accept-Encoding header: brotli when accepted, else gzip, else none (null).
 * A coding listed with q=0 is refused; `*` accepts what is not listed.
 */
export function chooseEncoding(header: string | null): ContentEncoding | null {
  if (!header) return null;
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const accepted = (coding: string) => (weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*') ?? 0) > 0;
  if (accepted('br')) return 'br';
  if (accepted('gzip')) return 'gzip';
  return null;
}

interface Compressed {
  mtimeMs: number;
  size: number;
  /** Read from the build's copies; otherwise made here, until the build writes them. */
  fromBuild: boolean;
  br: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
}

/** The compressed forms of a file: the build's `.br`/`.gz` when they are at least as new as it, else made once here. */
function compressedForms(file: string, cache: Map<string, Compressed>): Compressed {
  const stat = statSync(file);
  const kept = cache.get(file);
  if (kept && kept.mtimeMs === stat.mtimeMs && kept.size === stat.size && (kept.fromBuild || !existsSync(`${file}.br`))) return kept;
  const beside = (suffix: string) => {
    const path = `${file}${suffix}`;
    return existsSync(path) && statSync(path).mtimeMs >= stat.mtimeMs ? new Uint8Array(readFileSync(path)) : null;
  };
  let br = beside('.br');
  let gzip = beside('.gz');
  const fromBuild = br !== null && gzip !== null;
  if (!br || !gzip) {
    const raw = readFileSync(file);
    br ??= new Uint8Array(brotliCompressSync(raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } }));
    gzip ??= new Uint8Array(gzipSync(raw, { level: 6 }));
  }
  const forms = { mtimeMs: stat.mtimeMs, size: stat.size, fromBuild, br, gzip };
  cache.set(file, forms);
  return forms;
}

export interface Dashboard {
  /**
   * Answers GET /app and /app/<rest>; `rest` is the path after "/app/" (empty for /app itself). `request`
   * gives the Accept-Encoding and If-None-Match headers; without it the file goes out as it is.
   */
  serve(rest: string, request?: Request): Response;
}

export function createDashboard(distDir: string = DEFAULT_DIST): Dashboard {
  const index = join(distDir, 'index.html');
  const compressed = new Map<string, Compressed>();

  /** A file of the build, compressed as the client accepts when it is text; `vary` says the answer depends on that. */
  function fileResponse(file: string, request: Request | undefined, headers: Record<string, string>): Response {
    if (!COMPRESSIBLE.has(extname(file))) return new Response(Bun.file(file), { headers });
    const varied = { ...headers, vary: 'accept-encoding' };
    const encoding = chooseEncoding(request?.headers.get('accept-encoding') ?? null);
    if (!encoding) return new Response(Bun.file(file), { headers: varied });
    const forms = compressedForms(file, compressed);
    return new Response(forms[encoding], { headers: { ...varied, 'content-encoding': encoding } });
  }

  function page(request: Request | undefined): Response {
    if (!existsSync(index)) {
      return new Response(NOT_BUILT_HTML, {
        status: 503,
        headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '10' },
      });
    }
    // Revalidated on every load: the validator lets an unchanged page answer 304 without its body.
    const stat = statSync(index);
    const etag = `"${stat.size.toString(36)}-${Math.trunc(stat.mtimeMs).toString(36)}"`;
    const headers = { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', etag };
    const ifNoneMatch = request?.headers.get('if-none-match');
    if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === `W/${etag}`)) {
      return new Response(null, { status: 304, headers: { ...headers, vary: 'accept-encoding' } });
    }
    return fileResponse(index, request, headers);
  }

  // A missing asset is an unknown route like any other: the one error body, not a bare text.
  function notFound(): Response {
    return renderError(new AppError('not_found', errorMessages.routeNotFound), undefined, { 'cache-control': 'no-store' });
  }

  return {
    serve(rest, request) {
      let path: string;
      try {
        path = decodeURIComponent(rest);
      } catch {
        return notFound();
      }
      // Only the build's assets are files; every other address is a screen of the page.
      if (!path.startsWith('assets/')) return page(request);
      const clean = normalize(path);
      if (!clean.startsWith('assets/') || clean.includes('\0')) return notFound();
      const file = join(distDir, clean);
      // The build's compressed copies are not addresses of their own.
      if (!existsSync(file) || clean.endsWith('.br') || clean.endsWith('.gz')) return notFound();
      return fileResponse(file, request, {
        'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
        // Vite names assets by their content hash: a changed file is a new name.
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      });
    },
  };
}
