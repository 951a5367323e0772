// `npm start`: brings the dashboard build up to date (instant when it is), then runs the server in
// this same process, so signals from a process manager reach it directly.
import { ensureWebBuilt } from './build-web';

try {
  await ensureWebBuilt();
} catch (error) {
  process.stderr.write(`Conduit cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
await import('../src/index');
