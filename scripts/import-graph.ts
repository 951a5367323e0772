// The import graph of src/ and web/src/, read with the TypeScript parser (type-only imports count: a type
// that two modules both need is a shared piece and belongs on the lower floor, as docs/ARCHITECTURE.md says).
// `npm run imports` prints the floors, the circles and the upward imports; test/platform/architecture.test.ts fails
// on any circle and on any upward import that ALLOWED_UPWARD below does not name.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface ImportEdge {
  from: string;
  to: string;
  /** 1-based line of the import in `from`. */
  line: number;
  typeOnly: boolean;
}

/** Repository-relative paths (forward slashes) → the edges leaving that file, to files of the graph only. */
export type ImportGraph = Map<string, ImportEdge[]>;

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['src', 'web/src'];
const CODE = /\.(ts|tsx)$/;
const RESOLVE_SUFFIXES = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'];

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (CODE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function specifiers(text: string, fileName: string): { specifier: string; line: number; typeOnly: boolean }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: { specifier: string; line: number; typeOnly: boolean }[] = [];
  const add = (node: ts.Node, literal: ts.Expression | undefined, typeOnly: boolean) => {
    if (literal && ts.isStringLiteral(literal)) {
      found.push({ specifier: literal.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, typeOnly });
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node, node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The path aliases of tsconfig.json (`paths`), as the page uses them: `@server/x` is `src/x`. Resolved here
 * too, or every import of the server's code from web/src would drop out of the graph unchecked.
 */
const ALIASES: { prefix: string; dir: string }[] = [{ prefix: '@server/', dir: 'src' }];

/** Reads every .ts/.tsx file under src/ and web/src/ and resolves its relative and aliased imports to files. */
export function readImportGraph(root = ROOT): ImportGraph {
  const files = SOURCE_DIRS.flatMap((dir) => walk(join(root, dir), []));
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const from = relative(root, file).split('\\').join('/');
    const edges: ImportEdge[] = [];
    for (const { specifier, line, typeOnly } of specifiers(readFileSync(file, 'utf8'), file)) {
      const alias = ALIASES.find(({ prefix }) => specifier.startsWith(prefix));
      if (!alias && !specifier.startsWith('.')) continue; // a package, not ours
      const base = alias ? join(root, alias.dir, specifier.slice(alias.prefix.length)) : resolve(dirname(file), specifier);
      const target = RESOLVE_SUFFIXES.map((suffix) => base + suffix).find((path) => known.has(path));
      if (!target) {
        if (CODE.test(specifier) || !existsSync(base)) throw new Error(`${from}:${line}: cannot resolve '${specifier}'`);
        continue; // a stylesheet or another non-code file
      }
      edges.push({ from, to: relative(root, target).split('\\').join('/'), line, typeOnly });
    }
    graph.set(from, edges);
  }
  return graph;
}

// ---- floors -----------------------------------------------------------------------------------------------

/** Top to bottom. A module may import its own floor and any floor below it (docs/ARCHITECTURE.md). */
export const FLOORS = ['entry', 'http', 'feature', 'base', 'page-entry', 'page-screen', 'page-part', 'page-base'] as const;
export type Floor = (typeof FLOORS)[number];

const ENTRY_FILES = new Set(['index.ts', 'server.ts', 'app.ts', 'services.ts', 'features.ts']);
/** Folders (first level under src/) and top-level files of the base: they know no feature and no route. */
const BASE = new Set([
  'db',
  'crypto',
  'http',
  'jobs',
  'mail',
  'metrics',
  'payments',
  'platform',
  'pricing',
  'config.ts',
  'dev-secrets.ts',
  'logger.ts',
  'money.ts',
  'money-words.ts',
  'phone.ts',
  'service-info.ts',
  'supervisor.ts',
  'workers-config.ts',
]);
/** `chat-completions.route.ts`, `v1.openapi.ts`: a raw route's definition and its OpenAPI text. */
const RAW_ROUTE_FILE = /\.(route|openapi)\.ts$/;
/** The page's shell (web/src/app/): the two entries, and below every screen the server client, session and routing. */
const PAGE_ENTRY = new Set(['app/main.tsx', 'app/App.tsx']);
const PAGE_BASE = new Set(['app']);
/** What several features' screens share: widgets, formatting, texts, form checks. */
const PAGE_PARTS = new Set(['shared']);

/**
 * The floor of a repository-relative path, by folder, so that moved files keep their floor:
 * `src/openapi.ts` and `src/openapi/*.ts` are both http, `src/db/client.ts` and `src/db/columns.ts` both base.
 */
export function floorOf(path: string): Floor {
  if (path.startsWith('web/src/')) {
    const rest = path.slice('web/src/'.length);
    const folder = rest.split('/')[0]!;
    if (PAGE_ENTRY.has(rest)) return 'page-entry';
    if (PAGE_BASE.has(folder)) return 'page-base';
    if (PAGE_PARTS.has(folder)) return 'page-part';
    // Every other folder is a feature's screens; a file loose at the top belongs to none and is refused.
    if (rest.includes('/')) return 'page-screen';
    throw new Error(`a page file outside any folder: ${path}`);
  }
  if (!path.startsWith('src/')) throw new Error(`not in the graph: ${path}`);
  const parts = path.slice('src/'.length).split('/');
  const head = parts[0]!;
  const name = parts[parts.length - 1]!;
  if (parts.length === 1 && ENTRY_FILES.has(head)) return 'entry';
  // A feature's definition (feature.ts) plugs it in: it names the feature's routers and raw routes, so it
  // sits with the composition.
  if (name === 'feature.ts' && head !== 'platform') return 'entry';
  // Shared by the typed clients of every third-party API (YooKassa's in payments/ too).
  if (path === 'src/integrations/http-call.ts') return 'base';
  // The root router is the features' routers under their keys, and the OpenAPI document describes them
  // all: both read the feature list.
  if (path === 'src/trpc/router.ts' || path === 'src/raw-routes.ts' || path === 'src/openapi/document.ts' || path === 'src/openapi/document.route.ts') return 'entry';
  // A raw route's definition (and its long OpenAPI text) is a route wherever its feature keeps it; the list of
  // them is read by the app and the OpenAPI document.
  if (RAW_ROUTE_FILE.test(name)) return 'http';
  if (BASE.has(head)) return 'base';
  if (head === 'trpc' || head === 'openapi' || /^openapi(-[a-z0-9-]+)?\.ts$/.test(head)) return 'http';
  if (name === 'router.ts' || name.endsWith('-router.ts') || name === 'routes.ts') return 'http';
  return 'feature';
}

/** An upward import the map allows, with its reason. Kept short: each one is a debt or a deliberate seam. */
export interface AllowedUpward {
  from: string;
  to: string;
  /** When set, only `import type` is allowed: a value import along the same edge is still refused. */
  typeOnly?: boolean;
  reason: string;
}

export const ALLOWED_UPWARD: AllowedUpward[] = [
  {
    from: 'src/jobs/tables.ts',
    to: 'src/agents/tables.ts',
    reason: "the outbox's rows go with their agent and notification (foreign keys, on delete cascade): the base's table names the agents' tables",
  },
];

// ---- checks -----------------------------------------------------------------------------------------------

/**
 * The import circles: one per strongly connected group of files (Tarjan), each shown as one shortest
 * chain that starts and ends at the group's first file in name order.
 */
export function findCircles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let counter = 0;
  const targets = (node: string) => (graph.get(node) ?? []).map((edge) => edge.to);

  const strongConnect = (start: string) => {
    // Iterative, so a deep chain of files cannot overflow the call stack.
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter);
    counter++;
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const outs = targets(frame.node);
      if (frame.next < outs.length) {
        const to = outs[frame.next++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter);
          counter++;
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        if (group.length > 1 || targets(frame.node).includes(frame.node)) groups.push(group);
      }
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) strongConnect(node);

  return groups
    .map((group) => {
      const members = new Set(group);
      const start = [...group].sort()[0]!;
      // Shortest way back to `start` inside the group (breadth first).
      const previous = new Map<string, string>();
      const queue = [start];
      let end: string | undefined;
      while (queue.length && !end) {
        const node = queue.shift()!;
        for (const to of targets(node)) {
          if (!members.has(to)) continue;
          if (to === start) {
            end = node;
            break;
          }
          if (!previous.has(to)) {
            previous.set(to, node);
            queue.push(to);
          }
        }
      }
      const chain = [start];
      for (let node = end!; node !== start; node = previous.get(node)!) chain.splice(1, 0, node);
      chain.push(start);
      return chain;
    })
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Imports from a floor to a higher one that `allowed` does not name. */
export function findUpward(graph: ImportGraph, floor: (path: string) => Floor = floorOf, allowed: AllowedUpward[] = ALLOWED_UPWARD): ImportEdge[] {
  const rank = (path: string) => FLOORS.indexOf(floor(path));
  const upward: ImportEdge[] = [];
  for (const edges of graph.values()) {
    for (const edge of edges) {
      // The page is its own house on top of the server's: web/src may use the server's types and zod inputs.
      if (edge.from.startsWith('web/') !== edge.to.startsWith('web/')) continue;
      if (rank(edge.to) >= rank(edge.from)) continue;
      if (allowed.some((allow) => allow.from === edge.from && allow.to === edge.to && (!allow.typeOnly || edge.typeOnly))) continue;
      upward.push(edge);
    }
  }
  return upward.sort((a, b) => a.from.localeCompare(b.from) || a.line - b.line);
}

/** Allow-list entries that no longer match an import: stale ones must go, or the list only ever grows. */
export function unusedAllowances(graph: ImportGraph, allowed: AllowedUpward[] = ALLOWED_UPWARD): AllowedUpward[] {
  return allowed.filter((allow) => !(graph.get(allow.from) ?? []).some((edge) => edge.to === allow.to));
}

/**
 * Folders that are no feature: the base, the tRPC and OpenAPI set-up, and files shared by a group of
 * features (src/integrations/http-call.ts). Every other first-level folder under src/ is a feature, and so is
 * each folder under src/integrations/.
 */
const NOT_FEATURES = new Set(['db', 'crypto', 'http', 'jobs', 'mail', 'metrics', 'payments', 'platform', 'pricing', 'trpc', 'openapi']);

/** The feature a file of src/ belongs to (`integrations/social`, `keys`…), or null for the base and the composition. */
export function featureOf(path: string): string | null {
  if (!path.startsWith('src/')) return null;
  const parts = path.slice('src/'.length).split('/');
  if (parts.length === 1 || NOT_FEATURES.has(parts[0]!)) return null;
  if (parts[0] === 'integrations') return parts.length > 2 ? `integrations/${parts[1]}` : null;
  return parts[0]!;
}

/** A feature's one way in from another feature. */
export const entryOf = (feature: string) => `src/${feature}/index.ts`;
/**
 * A feature's tables, the other door: foreign keys point across features (most rows at the accounts' users,
 * the integrations' at agents and dialogues), and a table reached through index.ts would load the whole
 * feature behind it into the schema's modules.
 */
export const tablesOf = (feature: string) => `src/${feature}/tables.ts`;

/** Imports from one feature into another that do not go through the other's index.ts (or to its tables.ts). */
export function findDeepImports(graph: ImportGraph, feature: (path: string) => string | null = featureOf): ImportEdge[] {
  const deep: ImportEdge[] = [];
  for (const edges of graph.values()) {
    for (const edge of edges) {
      const from = feature(edge.from);
      const to = feature(edge.to);
      if (from === null || to === null || from === to) continue;
      if (edge.to !== entryOf(to) && edge.to !== tablesOf(to)) deep.push(edge);
    }
  }
  return deep.sort((a, b) => a.from.localeCompare(b.from) || a.line - b.line);
}

/**
 * The features' own dependencies, one node per feature: the imports of their services and APIs. A feature's
 * routers, raw routes and definition (the http and entry floors) sit above every feature and may read several;
 * what they import is no dependency of the feature's core, so it cannot close a circle. Nor can a table.
 */
export function featureGraph(graph: ImportGraph, feature: (path: string) => string | null = featureOf, floor: (path: string) => Floor = floorOf): ImportGraph {
  const features: ImportGraph = new Map();
  for (const edges of graph.values()) {
    for (const edge of edges) {
      const from = feature(edge.from);
      const to = feature(edge.to);
      if (from === null || to === null) continue;
      if (!features.has(from)) features.set(from, []);
      if (!features.has(to)) features.set(to, []);
      // Tables are the schema every feature shares: a foreign key across features, or a read of another
      // feature's rows through its tables.ts, is no dependency on that feature's code.
      if (from === to || floor(edge.from) === 'http' || floor(edge.from) === 'entry' || edge.from === tablesOf(from) || edge.to === tablesOf(to)) continue;
      const out = features.get(from)!;
      if (!out.some((known) => known.to === to)) out.push({ from, to, line: out.length + 1, typeOnly: edge.typeOnly });
    }
  }
  return features;
}

export function describeEdge(edge: ImportEdge, floor: (path: string) => Floor = floorOf): string {
  return `${edge.from}:${edge.line} (${floor(edge.from)}) -> ${edge.to} (${floor(edge.to)})${edge.typeOnly ? ' [type only]' : ''}`;
}

if (import.meta.main) {
  const graph = readImportGraph();
  const byFloor = new Map<Floor, string[]>();
  for (const file of [...graph.keys()].sort()) {
    const floor = floorOf(file);
    byFloor.set(floor, [...(byFloor.get(floor) ?? []), file]);
  }
  console.log(`${graph.size} files, ${[...graph.values()].reduce((sum, edges) => sum + edges.length, 0)} imports`);
  for (const floor of FLOORS) {
    const files = byFloor.get(floor) ?? [];
    const folders = [
      ...new Set(
        files.map((file) =>
          file
            .split('/')
            .slice(0, file.startsWith('web/') ? 3 : 2)
            .join('/'),
        ),
      ),
    ];
    console.log(`\n${floor} (${files.length} files): ${folders.join(' ')}`);
  }
  const circles = findCircles(graph);
  console.log(`\ncircles: ${circles.length}`);
  for (const chain of circles) console.log(`  ${chain.join(' -> ')}`);
  const upward = findUpward(graph);
  console.log(`\nupward imports outside the allow list: ${upward.length}`);
  for (const edge of upward) console.log(`  ${describeEdge(edge)}`);
  console.log(`\nallowed upward imports: ${ALLOWED_UPWARD.length}`);
  for (const allow of ALLOWED_UPWARD) console.log(`  ${allow.from} -> ${allow.to}: ${allow.reason}`);
  for (const stale of unusedAllowances(graph)) console.log(`  STALE (no such import): ${stale.from} -> ${stale.to}`);
  const deep = findDeepImports(graph);
  console.log(`\nimports into another feature past its index.ts: ${deep.length}`);
  for (const edge of deep) console.log(`  ${describeEdge(edge)}`);
  const featureCircles = findCircles(featureGraph(graph));
  console.log(`\nfeature circles: ${featureCircles.length}`);
  for (const chain of featureCircles) console.log(`  ${chain.join(' -> ')}`);
  process.exitCode = circles.length || upward.length || deep.length || featureCircles.length ? 1 : 0;
}
