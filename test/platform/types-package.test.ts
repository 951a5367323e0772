// The types package as another project uses it: `build:types` writes the router's declarations, a
// scratch project with a plain tsconfig (no Bun types, none of the server's sources, only @trpc/client
// and @trpc/server beside the package) type-checks a createTRPCClient<AppRouter> against them, a
// deliberate mistake in the same code is reported, and the checked client then calls the real server.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '../helpers/app';

// tsc over the server's sources, then twice over the scratch project: well past bun's 5 s default.
setDefaultTimeout(180_000);

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  types: string;
  exports: Record<string, { types: string }>;
};

let scratch: string;
let app: TestApp;

const CLIENT = `import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { AppRouter } from '${rootPackage.name}/types';

export function conduit(url: string, token?: string) {
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: url + '/trpc', headers: () => (token ? { authorization: 'Bearer ' + token } : {}) })],
  });
}
`;

const GOOD = `import { conduit } from './client.js';
// No @types/node in this project: the one thing it reads of Node.
declare const process: { env: Record<string, string | undefined> };
import type { RouterInputs, RouterOutputs } from '${rootPackage.name}/types';

const url = process.env.CONDUIT_URL ?? 'http://127.0.0.1:3000';
const anonymous = conduit(url);
const registered = await anonymous.auth.register.mutate({ email: process.env.CONDUIT_EMAIL ?? 'a@example.com', password: 'secret123' });
const token: string = registered.token;
const client = conduit(url, token);
const input: RouterInputs['keys']['create'] = { name: 'from another project', spendLimit: 10, limitReset: 'month' };
const created: RouterOutputs['keys']['create'] = await client.keys.create.mutate(input);
const balance: number = (await client.account.balance.query()).balance;
const usage = await client.account.usage.query({ limit: 5 });
const statuses: string[] = usage.data.map((row) => row.status);
const limitReset: 'none' | 'day' | 'week' | 'month' = created.limitReset;
const scope: 'key' | 'account' = created.scope;
console.log(JSON.stringify({ email: registered.user.email, keyPrefix: created.keyPrefix, limitReset, scope, balance, statuses }));
`;

// Each line is one mistake a client developer could make; the type-check must name every one.
const BAD = `import { conduit } from './client.js';

const client = conduit('http://127.0.0.1:3000', 'token');
await client.keys.create.mutate({ name: 42 });
const balance: string = (await client.account.balance.query()).balance;
await client.account.usage.query({ limit: 5, keyIds: 'x' });
await client.keys.rotate.mutate({ id: 'x' });
`;

function typeCheck(dir: string): { status: number; output: string } {
  const run = Bun.spawnSync([process.execPath, tsc, '-p', dir], { cwd: dir });
  return { status: run.exitCode, output: run.stdout.toString() + run.stderr.toString() };
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'conduit-types-'));
  // The package as it would be installed: its package.json's entry points and the built declarations.
  const pkg = join(scratch, 'node_modules', rootPackage.name);
  const built = join(pkg, rootPackage.exports['./types']!.types);
  const build = Bun.spawnSync([process.execPath, join(root, 'scripts/build-types.ts'), '--out', built], { cwd: root });
  if (build.exitCode !== 0) throw new Error(`build:types failed:\n${build.stdout}${build.stderr}`);
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: rootPackage.name, version: '0.0.0', types: rootPackage.types, exports: rootPackage.exports }));
  // Only what a client project installs besides: the tRPC client and the server types it builds on.
  for (const dep of ['@trpc/client', '@trpc/server']) {
    const link = join(scratch, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', dep), link, 'dir');
  }
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch-client', private: true, type: 'module' }));
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({
      // What `tsc --init` writes today, less skipLibCheck: the package's own file is checked too.
      compilerOptions: { target: 'ESNext', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true },
      include: ['src'],
    }),
  );
  mkdirSync(join(scratch, 'src'));
  writeFileSync(join(scratch, 'src', 'client.ts'), CLIENT);
  writeFileSync(join(scratch, 'src', 'good.ts'), GOOD);
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the types package (npm run build:types)', () => {
  test('one declaration file that imports nothing but @trpc/server', () => {
    const text = readFileSync(join(scratch, 'node_modules', rootPackage.name, rootPackage.exports['./types']!.types), 'utf8');
    const imports = [...text.matchAll(/^(?:import|export)\b[^;]*?from ['"]([^'"]+)['"]|import\(['"]([^'"]+)['"]\)/gm)].map((m) => m[1] ?? m[2]);
    expect(new Set(imports)).toEqual(new Set(['@trpc/server']));
    expect(text).not.toMatch(/bun-types|reference types=|drizzle|pglite|elysia/i);
    expect(text).toContain('export type { AppRouter');
  });

  test('a plain project type-checks a createTRPCClient<AppRouter> against it, and the client works', async () => {
    const checked = typeCheck(scratch);
    expect(checked.output).toBe('');
    expect(checked.status).toBe(0);

    const email = `types-${Date.now()}@example.com`;
    // Not spawnSync: the server answering it runs in this process.
    const run = Bun.spawn([process.execPath, join(scratch, 'src', 'good.ts')], {
      cwd: scratch,
      env: { ...process.env, CONDUIT_URL: app.url, CONDUIT_EMAIL: email },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({ email, keyPrefix: expect.stringMatching(/^cdt-/), limitReset: 'month', scope: 'key', balance: 3, statuses: [] });
  });

  test('a wrong input, a wrong output type, an unknown field and an unknown procedure are each reported', () => {
    writeFileSync(join(scratch, 'src', 'bad.ts'), BAD);
    try {
      const checked = typeCheck(scratch);
      expect(checked.status).not.toBe(0);
      const errors = checked.output.split('\n').filter((line) => line.includes('error TS'));
      const lines = new Set(errors.map((line) => /^src\/bad\.ts\((\d+),/.exec(line)?.[1]));
      expect([...lines].sort()).toEqual(['4', '5', '6', '7']);
      expect(checked.output).toContain("'keyIds' does not exist");
      expect(checked.output).toContain("Property 'rotate' does not exist");
      expect(errors.every((line) => line.startsWith('src/bad.ts('))).toBe(true);
    } finally {
      rmSync(join(scratch, 'src', 'bad.ts'));
    }
  });
});
