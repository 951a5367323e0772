// The dashboard's files as a browser receives them (issue 41 point 9): brotli or gzip when accepted, with
// `vary: accept-encoding`; hashed assets cached for a year, the page revalidated; the body, once decoded, the
// very file the build wrote. The site's icon at /favicon.ico and /favicon.svg, named by the pages. And the
// script the first page load fetches stays within 250 KB gzip.
// Read with node:http, which (unlike fetch) hands over the bytes as they came, still compressed.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ensureWebBuilt, precompress } from '../../scripts/build-web';
import { chooseEncoding } from '../../src/http/dashboard';
import { startTestApp, type TestApp } from '../helpers/app';

setDefaultTimeout(240_000);

const DIST = join(import.meta.dir, '..', '..', 'web', 'dist');
/** The goal of issue 41: the JS of the first page load, compressed, at most this many bytes. */
const INITIAL_JS_GZIP_LIMIT = 250 * 1024;

let app: TestApp;

beforeAll(async () => {
  await ensureWebBuilt(() => {});
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, app.url), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decoded(answer: RawAnswer): Buffer {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.body);
  if (encoding === 'gzip') return gunzipSync(answer.body);
  expect(encoding).toBeUndefined();
  return answer.body;
}

/** The files index.html loads at once: its module script and what it preloads, its styles. */
function initialFiles(): { scripts: string[]; styles: string[] } {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script[^>]+src="\/app\/([^"]+\.js)"/g), ...html.matchAll(/<link rel="modulepreload"[^>]+href="\/app\/([^"]+\.js)"/g)].map(
    (m) => m[1]!,
  );
  const styles = [...html.matchAll(/<link rel="stylesheet"[^>]+href="\/app\/([^"]+\.css)"/g)].map((m) => m[1]!);
  return { scripts: [...new Set(scripts)], styles };
}

describe('Accept-Encoding', () => {
  test('brotli first, then gzip; a coding with q=0 is refused; * accepts what is not named', () => {
    expect(chooseEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(chooseEncoding('gzip, deflate')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip;q=0')).toBeNull();
    expect(chooseEncoding('identity')).toBeNull();
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('*, br;q=0')).toBe('gzip');
    expect(chooseEncoding('')).toBeNull();
    expect(chooseEncoding(null)).toBeNull();
  });
});

describe('the dashboard files', () => {
  test('the script and styles: brotli, gzip or plain as asked, each decoding to the built file; cached for a year', async () => {
    const { scripts, styles } = initialFiles();
    expect(scripts.length).toBeGreaterThan(0);
    expect(styles.length).toBeGreaterThan(0);
    for (const name of [...scripts, ...styles]) {
      const file = readFileSync(join(DIST, name));
      for (const [accept, encoding] of [
        ['gzip, deflate, br', 'br'],
        ['gzip', 'gzip'],
        ['identity', undefined],
      ] as const) {
        const answer = await get(`/app/${name}`, { 'accept-encoding': accept });
        expect(answer.status).toBe(200);
        expect(answer.headers['content-encoding']).toBe(encoding);
        expect(answer.headers.vary).toBe('accept-encoding');
        expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(answer.headers['content-type']).toMatch(name.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
        expect(decoded(answer).equals(file)).toBe(true);
        if (encoding) expect(answer.body.length).toBeLessThan(file.length / 2);
      }
    }
  });

  test('the page: compressed, revalidated every load, 304 while unchanged; every screen address gets it', async () => {
    const file = readFileSync(join(DIST, 'index.html'));
    const page = await get('/app/', { 'accept-encoding': 'br' });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBe('br');
    expect(page.headers.vary).toBe('accept-encoding');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(decoded(page).equals(file)).toBe(true);
    const etag = page.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await get('/app/', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await get('/app/', { 'if-none-match': '"other"' })).status).toBe(200);
    const screen = await get('/app/keys', { 'accept-encoding': 'gzip' });
    expect(screen.headers['content-encoding']).toBe('gzip');
    expect(decoded(screen).equals(file)).toBe(true);
  });

  test("the build's compressed copies are what is sent, and not addresses of their own", async () => {
    precompress(DIST);
    const [script] = initialFiles().scripts;
    const br = await get(`/app/${script}`, { 'accept-encoding': 'br' });
    expect(br.body.equals(readFileSync(join(DIST, `${script}.br`)))).toBe(true);
    const gz = await get(`/app/${script}`, { 'accept-encoding': 'gzip' });
    expect(gz.body.equals(readFileSync(join(DIST, `${script}.gz`)))).toBe(true);
    for (const suffix of ['.br', '.gz']) {
      const copy = await get(`/app/${script}${suffix}`);
      expect(copy.status).toBe(404);
      expect(JSON.parse(copy.body.toString()).error.type).toBe('not_found');
    }
  });

  test('the JS of the first page load is at most 250 KB gzip, as the server sends it', async () => {
    precompress(DIST);
    let gzip = 0;
    let br = 0;
    for (const name of initialFiles().scripts) {
      const zipped = await get(`/app/${name}`, { 'accept-encoding': 'gzip' });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      gzip += zipped.body.length;
      br += (await get(`/app/${name}`, { 'accept-encoding': 'br' })).body.length;
    }
    expect(gzip).toBeGreaterThan(10 * 1024);
    expect(gzip).toBeLessThanOrEqual(INITIAL_JS_GZIP_LIMIT);
    expect(br).toBeLessThan(gzip);
  });
});

describe('the icon', () => {
  test('/favicon.ico is a 32×32 ICO holding a PNG; /favicon.svg an SVG; the pages name it', async () => {
    const ico = await get('/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers['content-type']).toBe('image/x-icon');
    expect(ico.headers['cache-control']).toContain('max-age=');
    // ICONDIR: reserved 0, type 1 (icon), one image; its entry: 32×32, 32 bits, the PNG at offset 22.
    expect([ico.body.readUInt16LE(0), ico.body.readUInt16LE(2), ico.body.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([ico.body[6], ico.body[7], ico.body.readUInt16LE(12)]).toEqual([32, 32, 32]);
    const offset = ico.body.readUInt32LE(18);
    const png = ico.body.subarray(offset, offset + ico.body.readUInt32LE(14));
    expect(offset + png.length).toBe(ico.body.length);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([32, 32]);

    const svg = await get('/favicon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.body.toString()).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"');

    // The dashboard and the site root name it; the address they name answers.
    const dashboard = decoded(await get('/app/'))
      .toString()
      .match(/<link rel="icon" href="([^"]+)"/);
    const root = (await get('/', { accept: 'text/html' })).body.toString().match(/<link rel="icon" href="([^"]+)"/);
    for (const link of [dashboard, root]) {
      expect(link).not.toBeNull();
      expect((await get(link![1]!)).status).toBe(200);
    }
  });
});

test('the dashboard build is present for these checks', () => {
  expect(existsSync(join(DIST, 'index.html'))).toBe(true);
});
