// openapi.json under a real OpenAPI linter: redocly's recommended rules plus ours (redocly.yaml: every
// operation described, every body and parameter with an example, Russian texts, explicit security),
// with zero errors and zero warnings, on the committed file and on the document the server serves.
// Then what a linter cannot know: every route the app serves is in the document, and the statuses the
// server really answers are the ones documented for those routes.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../src/app';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';

setDefaultTimeout(60_000);

const root = fileURLToPath(new URL('../..', import.meta.url));
const redocly = join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

/** Runs `redocly lint` with the project's config on openapi.json in `dir`; returns its JSON report. */
function lint(dir: string): LintReport {
  const run = Bun.spawnSync(['node', redocly, 'lint', 'openapi.json', '--format=json'], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  const out = run.stdout.toString();
  const start = out.indexOf('{');
  if (start < 0) throw new Error(`redocly printed no report: ${out}${run.stderr.toString()}`);
  return JSON.parse(out.slice(start)) as LintReport;
}

/** The findings as lines a reader can act on: rule, where, what. */
const findings = (report: LintReport) => report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);

let app: TestApp;
let doc: {
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
  components: { securitySchemes: Record<string, { description?: string }> };
};
beforeAll(async () => {
  app = await startTestApp();
  doc = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8'));
});
afterAll(() => app?.close());

describe('openapi.json passes redocly lint (recommended rules and ours) with no finding', () => {
  test('the committed openapi.json', () => {
    const report = lint(root);
    expect(findings(report)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    // Only the two findings .redocly.lint-ignore.yaml explains (paths fixed by decisions.md).
    expect(report.totals.ignored).toBe(2);
  });

  test('the document GET /openapi.json serves', async () => {
    const served = await fetch(`${app.url}/openapi.json`);
    expect(served.status).toBe(200);
    const dir = mkdtempSync(join(tmpdir(), 'conduit-openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), await served.text());
      copyFileSync(join(root, 'redocly.yaml'), join(dir, 'redocly.yaml'));
      copyFileSync(join(root, '.redocly.lint-ignore.yaml'), join(dir, '.redocly.lint-ignore.yaml'));
      const report = lint(dir);
      expect(findings(report)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a document that breaks our rules is refused, naming the rule (the lint can fail)', () => {
    const broken = structuredClone(doc) as unknown as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
    const login = broken.paths!['/api/auth/login']!.post!;
    delete login.description;
    delete (login.requestBody as { content: Record<string, Record<string, unknown>> }).content['application/json']!.example;
    (login.responses as Record<string, { description: string }>)['200']!.description = 'Successful response';
    const dir = mkdtempSync(join(tmpdir(), 'conduit-openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(broken));
      copyFileSync(join(root, 'redocly.yaml'), join(dir, 'redocly.yaml'));
      const rules = new Set(lint(dir).problems.map((p) => p.ruleId));
      expect([...rules]).toEqual(expect.arrayContaining(['rule/operation-description', 'rule/media-type-example', 'rule/response-description-russian']));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Served routes that are not API operations: the document itself, its page, the dashboard and the site's icon, the tRPC wire and the REST bridge (whose procedures the document lists one by one), the pages opened from an e-mail (its POST twin is documented), the Prometheus text and the information document. */
const NOT_OPERATIONS = new Set([
  'GET /',
  'GET /metrics',
  'GET /openapi.json',
  'GET /docs',
  'GET /docs/assets/{name}',
  'GET /app',
  'GET /app/*',
  'GET /favicon.ico',
  'GET /favicon.svg',
  'ALL /trpc/*',
  'ALL /api/*',
  'GET /api/auth/verify-email',
  'GET /api/account/email/confirm',
  'GET /api/account/email/revert',
  'GET /api/auth/password-reset/confirm',
]);

describe('the document covers what the server answers', () => {
  test('every route the app serves, /v1 and the inbound webhooks included, is an operation in the document', () => {
    // A parameter, named (:id, {id}) or a trailing wildcard (an id that holds slashes), as one placeholder.
    const shape = (route: string) => route.replace(/\{\w+\}|:\w+|\*$/g, '{}');
    const served = createApp(app.instance.services)
      .routes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .filter((route) => !NOT_OPERATIONS.has(route))
      .map(shape);
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => m !== 'parameters')
          .map((m) => shape(`${m.toUpperCase()} ${path}`)),
      ),
    );
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
    for (const route of [
      'POST /v1/chat/completions',
      'GET /v1/models',
      'GET /v1/models/{id}',
      'POST /api/v1/social/webhook/{agentId}',
      'POST /api/billing/yookassa/notifications',
    ]) {
      expect(documented.has(shape(route))).toBe(true);
    }
  });

  test('credentials: register and login need none, balance takes a JWT or a cdt- key, /v1 a key', () => {
    expect(doc.paths['/api/auth/register']!.post!.security).toEqual([]);
    expect(doc.paths['/api/auth/login']!.post!.security).toEqual([]);
    expect(doc.paths['/api/keys']!.get!.security).toEqual([{ Jwt: [] }]);
    expect(doc.paths['/api/balance']!.get!.security).toEqual([{ Jwt: [] }, { ApiKey: [] }]);
    expect(doc.paths['/v1/chat/completions']!.post!.security).toEqual([{ ApiKey: [] }]);
    expect(doc.components.securitySchemes.ApiKey!.description).toContain('cdt-');
    expect(doc.components.securitySchemes.ApiKey!.description).toContain('JWT');
  });

  test('the statuses the server answers are documented for their routes, each with a body', async () => {
    const documentedFor = (method: string, path: string) => Object.keys(doc.paths[path]![method]!.responses);
    const user = await registerUser(app.url);
    const observed: [string, string, number][] = [];
    const record = async (method: string, path: string, url: string, init: Parameters<typeof call>[3] = {}) => {
      const res = await call(app.url, method.toUpperCase(), url, init);
      observed.push([method, path, res.status]);
      return res;
    };
    await record('post', '/api/auth/register', '/api/auth/register', { body: { email: user.email, password: 'another-pass' } });
    await record('post', '/api/auth/register', '/api/auth/register', { body: { email: 'nope', password: 'x' } });
    await record('post', '/api/auth/login', '/api/auth/login', { body: { email: user.email, password: 'wrong-password' } });
    await record('get', '/api/keys', '/api/keys');
    await record('get', '/api/agents/{id}', '/api/agents/0f8fad5b-d9cb-469f-a165-70867728950e', { token: user.token });
    await record('post', '/api/keys', '/api/keys', { token: user.token, body: { name: 'x'.repeat(300) } });
    expect(observed.map(([, , status]) => status)).toEqual([409, 400, 401, 401, 404, 400]);
    for (const [method, path, status] of observed) {
      expect({ route: `${method} ${path}`, documented: documentedFor(method, path).includes(String(status)) }).toEqual({
        route: `${method} ${path}`,
        documented: true,
      });
    }
  });
});
