// The house's map (docs/ARCHITECTURE.md) as a check: no import circles in src/ or web/src/, and no import
// from a floor to a higher one unless scripts/import-graph.ts's ALLOWED_UPWARD names it with its reason;
// and no source, page or test file past the 800-line ceiling (a file that long is usually two concerns).
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ALLOWED_UPWARD,
  describeEdge,
  findCircles,
  findUpward,
  floorOf,
  readImportGraph,
  unusedAllowances,
  type Floor,
  type ImportEdge,
  type ImportGraph,
} from '../../scripts/import-graph';

function graphOf(edges: [from: string, to: string, typeOnly?: boolean][]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [from, to, typeOnly = false] of edges) {
    if (!graph.has(to)) graph.set(to, []);
    graph.set(from, [...(graph.get(from) ?? []), { from, to, line: (graph.get(from)?.length ?? 0) + 1, typeOnly }]);
  }
  return graph;
}

describe('the import graph of src/ and web/src/', () => {
  const graph = readImportGraph();

  test('is read whole: the files and imports the map names are there', () => {
    expect(graph.size).toBeGreaterThan(200);
    const appImports = graph.get('src/app.ts')!.map((edge) => edge.to);
    expect(appImports).toContain('src/trpc/rest.ts');
    // type-only imports are edges too: a shared type is a shared piece
    expect(graph.get('src/trpc/init.ts')).toContainEqual(expect.objectContaining({ to: 'src/platform/feature.ts', typeOnly: true }));
    expect(graph.get('web/src/admin/Users.tsx')!.map((edge) => edge.to)).toContain('web/src/admin/AdminError.tsx');
    // the page reaches the server's code through the `@server/*` alias: those edges are in the graph too
    expect(graph.get('web/src/shared/validate.ts')!.map((edge) => edge.to)).toContain('src/http/field-labels.ts');
    expect(graph.get('web/src/app/api.ts')).toContainEqual(expect.objectContaining({ to: 'src/trpc/router.ts', typeOnly: true }));
  });

  test('has no import circles', () => {
    const circles = findCircles(graph);
    expect(circles.map((chain) => chain.join(' -> '))).toEqual([]);
  });

  test('imports only downward, apart from the allow list', () => {
    const upward = findUpward(graph);
    expect(upward.map((edge) => describeEdge(edge))).toEqual([]);
  });

  test('the allow list is short, gives reasons and names only imports that exist', () => {
    expect(ALLOWED_UPWARD.length).toBeLessThanOrEqual(5);
    for (const allow of ALLOWED_UPWARD) expect(allow.reason.length).toBeGreaterThan(20);
    expect(unusedAllowances(graph)).toEqual([]);
  });
});

describe('the floors, by folder', () => {
  test('every floor named in docs/ARCHITECTURE.md, for old and new paths alike', () => {
    const expected: Record<string, Floor> = {
      'src/index.ts': 'entry',
      'src/services.ts': 'entry',
      'src/features.ts': 'entry',
      'src/trpc/router.ts': 'entry',
      'src/keys/feature.ts': 'entry',
      'src/integrations/social/feature.ts': 'entry',
      'src/keys/api.ts': 'feature',
      'src/integrations/social/api.ts': 'feature',
      'src/platform/feature.ts': 'base',
      'src/platform/lifecycle.ts': 'base',
      'src/trpc/init.ts': 'http',
      'src/trpc/routers/account.ts': 'http',
      'src/accounts/auth-router.ts': 'http',
      'src/openapi.ts': 'http',
      'src/openapi-v1.ts': 'http',
      'src/openapi/v1.ts': 'http',
      'src/openapi/index.ts': 'http',
      'src/keys/router.ts': 'http',
      'src/integrations/booking/routes.ts': 'http',
      'src/accounts/service.ts': 'feature',
      'src/integrations/booking/client.ts': 'feature',
      'src/assistant/flow.ts': 'feature',
      'src/gateway/usage-export.ts': 'feature',
      'src/gateway/billing/leases.ts': 'feature',
      'src/keys/verifier.ts': 'feature',
      'src/http/errors.ts': 'base',
      'src/db/schema.ts': 'base',
      'src/db/schema/users.ts': 'base',
      'src/db/columns.ts': 'base',
      'src/accounts/tables.ts': 'feature',
      'src/gateway/tables.ts': 'feature',
      'src/integrations/social/tables.ts': 'feature',
      'src/jobs/tables.ts': 'base',
      'src/pricing/tables.ts': 'base',
      'src/metrics/routes.ts': 'base',
      'src/pricing/prices.ts': 'base',
      'src/config.ts': 'base',
      'web/src/app/main.tsx': 'page-entry',
      'web/src/app/App.tsx': 'page-entry',
      'web/src/admin/Admin.tsx': 'page-screen',
      'web/src/keys/Keys.tsx': 'page-screen',
      'web/src/shared/ui.tsx': 'page-part',
      'web/src/shared/format.ts': 'page-part',
      'web/src/app/router.tsx': 'page-base',
      'web/src/app/api.ts': 'page-base',
    };
    expect(Object.fromEntries(Object.keys(expected).map((path) => [path, floorOf(path)]))).toEqual(expected);
  });

  test('a page file belongs to a folder: the shell, the shared parts or a feature', () => {
    expect(() => floorOf('web/src/format.ts')).toThrow('outside any folder');
  });

  test('a file outside src/ and web/src/ has no floor', () => {
    expect(() => floorOf('test/helpers/app.ts')).toThrow('not in the graph');
  });
});

describe('the checks catch what they are for (a made-up graph)', () => {
  const floors: Record<string, Floor> = {
    'src/app.ts': 'entry',
    'src/a/router.ts': 'http',
    'src/a/service.ts': 'feature',
    'src/b/service.ts': 'feature',
    'src/c/flow.ts': 'feature',
    'src/db/client.ts': 'base',
  };
  const floor = (path: string) => floors[path]!;

  test('a circle is found and shown as its chain; a graph without one has none', () => {
    const circular = graphOf([
      ['src/app.ts', 'src/a/service.ts'],
      ['src/a/service.ts', 'src/b/service.ts'],
      ['src/b/service.ts', 'src/c/flow.ts', true],
      ['src/c/flow.ts', 'src/a/service.ts'],
      ['src/c/flow.ts', 'src/db/client.ts'],
      ['src/db/client.ts', 'src/db/client.ts'],
    ]);
    expect(findCircles(circular)).toEqual([
      ['src/a/service.ts', 'src/b/service.ts', 'src/c/flow.ts', 'src/a/service.ts'],
      ['src/db/client.ts', 'src/db/client.ts'],
    ]);
    const straight = graphOf([
      ['src/app.ts', 'src/a/service.ts'],
      ['src/app.ts', 'src/b/service.ts'],
      ['src/a/service.ts', 'src/b/service.ts'],
      ['src/b/service.ts', 'src/db/client.ts'],
    ]);
    expect(findCircles(straight)).toEqual([]);
  });

  test('an upward import is reported with its place and floors; downward and same-floor ones are not', () => {
    const graph = graphOf([
      ['src/app.ts', 'src/a/router.ts'],
      ['src/a/router.ts', 'src/a/service.ts'],
      ['src/a/service.ts', 'src/b/service.ts'],
      ['src/b/service.ts', 'src/db/client.ts'],
      ['src/db/client.ts', 'src/a/router.ts'],
    ]);
    const upward = findUpward(graph, floor, []);
    expect(upward).toEqual([{ from: 'src/db/client.ts', to: 'src/a/router.ts', line: 1, typeOnly: false } satisfies ImportEdge]);
    expect(describeEdge(upward[0]!, floor)).toBe('src/db/client.ts:1 (base) -> src/a/router.ts (http)');
  });

  test('the allow list lets a named edge through, a type-only allowance no value import, and a stale entry shows', () => {
    const graph = graphOf([
      ['src/a/service.ts', 'src/a/router.ts', true],
      ['src/b/service.ts', 'src/app.ts'],
    ]);
    const allowed = [
      { from: 'src/a/service.ts', to: 'src/a/router.ts', typeOnly: true, reason: 'type only' },
      { from: 'src/b/service.ts', to: 'src/app.ts', typeOnly: true, reason: 'type only, but this one is a value' },
      { from: 'src/c/flow.ts', to: 'src/app.ts', reason: 'no such import' },
    ];
    expect(findUpward(graph, floor, allowed).map((edge) => `${edge.from} -> ${edge.to}`)).toEqual(['src/b/service.ts -> src/app.ts']);
    expect(unusedAllowances(graph, allowed).map((allow) => allow.from)).toEqual(['src/c/flow.ts']);
  });

  test("the page's imports of the server's types and inputs are outside the server's floors", () => {
    const graph = graphOf([['web/src/admin/Users.tsx', 'src/admin/input.ts']]);
    expect(findUpward(graph, (path) => (path.startsWith('web/') ? 'page-screen' : 'feature'), [])).toEqual([]);
  });
});

// The channels build the assistant and render its replies (issue 40 point 3): VK today, Telegram later. The
// assistant reaches a channel only through the port it defines (src/assistant/channel.ts), so the
// import between the two goes one way.
describe('the assistant imports no channel', () => {
  const intoSocial = (graph: ImportGraph) =>
    [...graph.values()].flat().filter((edge) => edge.from.startsWith('src/assistant/') && edge.to.startsWith('src/integrations/social/'));

  test('nothing under src/assistant/ imports src/integrations/social/', () => {
    expect(intoSocial(readImportGraph()).map((edge) => describeEdge(edge))).toEqual([]);
  });

  test('the check finds such an import (a type-only one too), not the channel importing the assistant', () => {
    const graph = graphOf([
      ['src/integrations/social/module.ts', 'src/assistant/dialogue.ts'],
      ['src/assistant/dialogue.ts', 'src/integrations/social/sender.ts'],
      ['src/assistant/tools/types.ts', 'src/integrations/social/keyboards.ts', true],
      ['src/assistant/menus.ts', 'src/assistant/reply.ts'],
    ]);
    expect(intoSocial(graph).map((edge) => `${edge.from} -> ${edge.to}`)).toEqual([
      'src/assistant/dialogue.ts -> src/integrations/social/sender.ts',
      'src/assistant/tools/types.ts -> src/integrations/social/keyboards.ts',
    ]);
  });
});

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 800;

/** Every .ts and .tsx file under `dir` (relative to the repository), node_modules left out. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The files over the ceiling, each with its line count (a last line without a newline counts too). */
export function overCeiling(files: { path: string; text: string }[], max = MAX_LINES): string[] {
  return files
    .map(({ path, text }) => ({ path, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) }))
    .filter(({ lines }) => lines > max)
    .map(({ path, lines }) => `${path}: ${lines} lines`);
}

describe('the 800-line ceiling', () => {
  test('the check counts lines as wc -l does and names each file over it', () => {
    const lines = (n: number) => 'x\n'.repeat(n);
    expect(
      overCeiling([
        { path: 'a.ts', text: lines(800) },
        { path: 'b.ts', text: `${lines(800)}y` },
        { path: 'c.ts', text: lines(801) },
      ]),
    ).toEqual(['b.ts: 801 lines', 'c.ts: 801 lines']);
  });

  test('no file in src/, web/src/ or test/ (fakes and helpers included) is over 800 lines', () => {
    const files = ['src', 'web/src', 'test']
      .flatMap(sourceFiles)
      .map((path) => ({ path: relative(ROOT, join(ROOT, path)), text: readFileSync(join(ROOT, path), 'utf8') }));
    expect(files.length).toBeGreaterThan(300);
    expect(files.some((file) => file.path.startsWith('test/fakes/'))).toBe(true);
    expect(overCeiling(files)).toEqual([]);
  });
});
