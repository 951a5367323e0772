// Copies the dashboard screenshots the README shows from the browser tests' output
// (test-artifacts/screens/, git-ignored) to docs/screens/ (committed). Run it after
// `bun test test/web/web-dashboard.test.ts test/web/web-statement.test.ts test/web/web-inbox.test.ts test/web/web-sessions.test.ts` when the dashboard's look changed:
//
//   bun scripts/readme-screens.ts
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const from = join(root, 'test-artifacts', 'screens');
const to = join(root, 'docs', 'screens');
/** Desktop and phone (390×844), as test/web/web-dashboard.test.ts, web-statement.test.ts, web-inbox.test.ts and web-sessions.test.ts name them. */
export const README_SCREENS = [
  'dashboard-overview-desktop.png',
  'dashboard-keys-phone.png',
  'statement-desktop.png',
  'statement-phone.png',
  'inbox-desktop.png',
  'inbox-phone.png',
  'sessions-desktop.png',
  'sessions-phone.png',
] as const;

mkdirSync(to, { recursive: true });
for (const name of README_SCREENS) {
  const source = join(from, name);
  if (!existsSync(source)) {
    process.stderr.write(
      `${source} нет: сначала запустите bun test test/web/web-dashboard.test.ts test/web/web-statement.test.ts test/web/web-inbox.test.ts test/web/web-sessions.test.ts\n`,
    );
    process.exit(1);
  }
  copyFileSync(source, join(to, name));
  process.stdout.write(`docs/screens/${name}\n`);
}
