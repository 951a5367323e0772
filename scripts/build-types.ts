// `npm run build:types`: the tRPC router's types as one declaration file, dist/types/index.d.ts, for a
// typed client in another project (createTRPCClient<AppRouter>). The TypeScript compiler writes the
// router file's declaration (self-contained but for the context and meta of src/trpc/init.ts);
// rollup-plugin-dts folds it into one file, giving init.ts's two types their client view
// (scripts/types/server-context.d.ts) and leaving @trpc/server an import, so the file needs neither Bun's
// types nor the server's sources. Anything else of the server's it named would fail to resolve here.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// `--out <file>` writes elsewhere (the test builds into a temporary directory of its own).
const outArg = process.argv.indexOf('--out');
const outFile = outArg > 0 && process.argv[outArg + 1] ? resolve(process.argv[outArg + 1]!) : join(root, 'dist/types/index.d.ts');
// Outside any node_modules: rollup-plugin-dts leaves declarations found under one as external imports.
const buildDir = mkdtempSync(join(tmpdir(), 'conduit-types-build-'));
const serverInit = join(buildDir, 'src/trpc/init');
const clientView = join(root, 'scripts/types/server-context.d.ts');

function fail(diagnostics: readonly ts.Diagnostic[]): never {
  rmSync(buildDir, { recursive: true, force: true });
  const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  console.error(`${ts.formatDiagnostics(diagnostics, host)}build:types: the router's declarations could not be written`);
  process.exit(1);
}

// Declarations of the router's file alone: its type is written out in full, so nothing else of the
// server needs declaring (a declaration problem in an unrelated module is `npm run typecheck`'s to
// report, not this build's). The router's own errors stop the build.
const parsed = ts.getParsedCommandLineOfConfigFile(
  join(root, 'tsconfig.types.json'),
  { outDir: buildDir },
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => fail([d]),
  },
);
if (!parsed) fail([]);
const program = ts.createProgram({ rootNames: parsed!.fileNames, options: parsed!.options });
const routerSource = program.getSourceFile(join(root, 'src/trpc/router.ts'));
if (!routerSource) fail([]);
const emitted = program.emit(routerSource, undefined, undefined, true);
const problems = [...ts.getPreEmitDiagnostics(program, routerSource), ...emitted.diagnostics].filter((d) => d.category === ts.DiagnosticCategory.Error);
if (problems.length > 0 || emitted.emitSkipped) fail(problems);

// The package's surface: the router's type and the input and output types of every procedure.
const entry = join(buildDir, 'index.d.ts');
writeFileSync(
  entry,
  `import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './src/trpc/router';
export type { AppRouter };
/** What each procedure takes, e.g. RouterInputs['keys']['create']. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** What each procedure answers, e.g. RouterOutputs['account']['usage']. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
`,
);

let code: string;
try {
  const bundle = await rollup({
    input: entry,
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    plugins: [
      {
        name: 'client-view-of-init',
        resolveId(source, importer) {
          if (!importer || !source.startsWith('.')) return null;
          const target = join(dirname(importer), source).replace(/(\.d)?\.ts$/, '');
          return target === serverInit ? clientView : null;
        },
      },
      dts({ respectExternal: false }),
    ],
    onwarn(warning) {
      throw new Error(`build:types: ${warning.message}`);
    },
  });
  const { output } = await bundle.generate({ format: 'es' });
  await bundle.close();
  code = output[0].code;
} finally {
  rmSync(buildDir, { recursive: true, force: true });
}

mkdirSync(dirname(outFile), { recursive: true });
const banner = `// Conduit's tRPC router types (npm run build:types). import type { AppRouter } from 'conduit/types'.\n`;
writeFileSync(outFile, banner + code);
const imports = [...new Set([...code.matchAll(/from '([^']+)'/g)].map((m) => m[1]))];
console.log(`wrote ${outFile} (${readFileSync(outFile).length} bytes; imports: ${imports.join(', ') || 'none'})`);
