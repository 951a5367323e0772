// Builds the dashboard page (web/ → web/dist) when the build is missing or older than what it is made
// of, so `npm start` and the browser test always serve the current page and a fresh start stays fast.
//
//   bun scripts/build-web.ts            build only when stale (what `npm start` runs)
//   bun scripts/build-web.ts --force    build anyway (`npm run build:web`)
//
// A build is the page's typecheck (web/tsconfig.json: the client is typed by the server's AppRouter, so
// a server change the page does not follow fails here) and the Vite build, side by side.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { COMPRESSIBLE } from '../src/http/dashboard';

const root = fileURLToPath(new URL('..', import.meta.url));
const webDir = join(root, 'web');
const distDir = join(webDir, 'dist');
/** Written by the Vite build (web/vite.config.ts): the files the bundle was made from. */
const sourcesFile = join(distDir, '.sources.json');
/**
 * Written after the typecheck: every file of ours the page's types rest on (through AppRouter, nearly all
 * of src/). A server change alone cannot change the bundle, so `npm start` ignores this list; the browser
 * test honours it, so `npm test` fails when the server's types no longer fit the page.
 */
const typedSourcesFile = join(distDir, '.typed-sources.json');
/** Held while building: two starts (or a start and the browser test) must not write web/dist at once. */
const lockDir = join(root, 'node_modules', '.cache', 'conduit-web-build.lock');
const LOCK_STALE_MS = 5 * 60_000;
const ALWAYS_WATCHED = ['web/index.html', 'web/vite.config.ts', 'web/tsconfig.json', 'tsconfig.json', 'package-lock.json'];

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

export interface StaleOptions {
  /** Also rebuild (and so typecheck) when a file the page's types rest on changed, not only its bundle. */
  types?: boolean;
}

/** Why the build must be made again, or null when web/dist is up to date. */
export function staleReason(options: StaleOptions = {}): string | null {
  if (!existsSync(join(distDir, 'index.html')) || !existsSync(sourcesFile)) return 'сборки нет';
  if (options.types && !existsSync(typedSourcesFile)) return 'типы ещё не проверялись';
  const builtAt = statSync(sourcesFile).mtimeMs;
  let recorded: string[];
  try {
    recorded = JSON.parse(readFileSync(sourcesFile, 'utf8')) as string[];
    if (options.types) recorded = [...recorded, ...(JSON.parse(readFileSync(typedSourcesFile, 'utf8')) as string[])];
  } catch {
    return 'список исходников сборки повреждён';
  }
  for (const file of new Set([...recorded, ...ALWAYS_WATCHED, ...filesUnder(join(webDir, 'src'))])) {
    const path = join(root, file);
    if (!existsSync(path)) {
      if (recorded.includes(file)) return `исходник ${file} удалён`;
      continue;
    }
    if (statSync(path).mtimeMs > builtAt) return `изменён ${file}`;
  }
  return null;
}

function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const kb = (bytes: number) => `${Math.round(bytes / 1024)} КБ`;
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

export async function buildWeb(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<void> {
  const started = performance.now();
  const typecheck = existsSync(bin('tsc'))
    ? run(bin('tsc'), ['--noEmit', '-p', 'web/tsconfig.json', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/conduit-web.tsbuildinfo', '--listFiles'])
    : Promise.resolve({ code: 0, output: 'typescript не установлен (npm install без dev-зависимостей): проверка типов пропущена\n' });
  const bundle = run(bin('vite'), ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']);
  const [checked, vite] = await Promise.all([typecheck, bundle]);
  // --listFiles prints the program's files as absolute paths; everything else is tsc's own report.
  const lines = checked.output.split('\n');
  const typed = lines.filter((line) => line.startsWith(root) && !line.includes('/node_modules/')).map((line) => relative(root, line.trim()));
  const types = { code: checked.code, output: lines.filter((line) => !line.startsWith('/')).join('\n') };
  if (types.code !== 0 || vite.code !== 0) {
    // A half-made build must not look current to the next start.
    rmSync(sourcesFile, { force: true });
    rmSync(typedSourcesFile, { force: true });
    const failed = [types.code !== 0 ? `проверка типов:\n${types.output}` : '', vite.code !== 0 ? `vite build:\n${vite.output}` : ''].filter(Boolean).join('\n');
    throw new Error(`Сборка панели (web/) не удалась.\n${failed}`);
  }
  const sizes = precompress();
  writeFileSync(typedSourcesFile, JSON.stringify(typed, null, 1));
  if (types.output.trim()) log(types.output.trim());
  log(`Сжатые копии: ${kb(sizes.raw)} → brotli ${kb(sizes.br)}, gzip ${kb(sizes.gzip)}`);
  log(`Панель собрана в web/dist за ${((performance.now() - started) / 1000).toFixed(1)} с`);
}

/**
 * Writes `<file>.br` (brotli, best quality) and `<file>.gz` (gzip -9) beside every text file of the build,
 * which src/http/dashboard.ts sends to clients that accept them: compressed once here, at levels too slow
 * for a request. Returns the sizes, for the log.
 */
export function precompress(dir: string = distDir): { raw: number; br: number; gzip: number } {
  const total = { raw: 0, br: 0, gzip: 0 };
  for (const file of filesUnder(dir).map((name) => join(root, name))) {
    if (!COMPRESSIBLE.has(extname(file)) || basename(file).startsWith('.')) continue;
    const raw = readFileSync(file);
    const br = brotliCompressSync(raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
    const gzip = gzipSync(raw, { level: 9 });
    writeFileSync(`${file}.br`, br);
    writeFileSync(`${file}.gz`, gzip);
    total.raw += raw.length;
    total.br += br.length;
    total.gzip += gzip.length;
  }
  return total;
}

async function withLock<T>(work: () => Promise<T>): Promise<T> {
  mkdirSync(join(lockDir, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A builder that died leaves its lock behind; no build takes minutes.
      if (Date.now() - statSync(lockDir).mtimeMs > LOCK_STALE_MS) rmSync(lockDir, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

/** Builds when stale; returns whether it built. */
export async function ensureWebBuilt(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`), options: StaleOptions = {}): Promise<boolean> {
  if (!staleReason(options)) return false;
  return withLock(async () => {
    // Another process may have built it while this one waited for the lock.
    const reason = staleReason(options);
    if (!reason) return false;
    log(`Собираю панель управления (${reason})…`);
    await buildWeb(log);
    return true;
  });
}

if (import.meta.main) {
  try {
    if (process.argv.includes('--force')) await withLock(() => buildWeb());
    else await ensureWebBuilt();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
