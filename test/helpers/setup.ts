// Loaded before every test file (bunfig.toml). Starting an app on a fresh database, or a server process,
// takes longer than bun's 5 s default; the `timeout` key of bunfig.toml does not reach every test here.
import { setDefaultTimeout } from 'bun:test';

setDefaultTimeout(30_000);
