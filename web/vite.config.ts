import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const webDir = fileURLToPath(new URL('.', import.meta.url));
const repoDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * Writes dist/.sources.json: every file the bundle was made from. scripts/build-web.ts compares their
 * times with the build's, so `npm start` rebuilds when a shared schema in src/ changed, not only web/.
 */
function recordSources(): Plugin {
  return {
    name: 'conduit-record-sources',
    apply: 'build',
    generateBundle() {
      const files = [...this.getModuleIds()]
        .filter((id) => !id.startsWith('\0') && id.startsWith(repoDir) && !id.includes('/node_modules/'))
        .map((id) => id.slice(repoDir.length).split('?')[0]!)
        .sort();
      this.emitFile({ type: 'asset', fileName: '.sources.json', source: JSON.stringify([...new Set(files)], null, 1) });
    },
  };
}

export default defineConfig(({ command }) => {
  // A build is the production page whatever NODE_ENV the caller runs with: `bun test` sets NODE_ENV=test,
  // which would otherwise bundle React's development build into web/dist — the very files `npm start`
  // serves next. Set here, before Vite reads it, so the JSX transform and React agree. An explicit
  // NODE_ENV=development still makes a development build.
  if (command === 'build' && process.env.NODE_ENV !== 'development') process.env.NODE_ENV = 'production';
  return {
    root: webDir,
    base: '/app/',
    plugins: [react(), recordSources()],
    // The server's shared inputs and types by name (the `paths` of ../tsconfig.json).
    resolve: { alias: [{ find: /^@server\//, replacement: `${repoDir}src/` }] },
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      // Unhashed names would be cached forever by the immutable header the server sends for assets.
      assetsDir: 'assets',
      sourcemap: false,
    },
    server: {
      // `npx vite web` while `npm start` runs: the page talks to the real server.
      proxy: { '/trpc': 'http://127.0.0.1:3000' },
      fs: { allow: [repoDir] },
    },
  };
});
