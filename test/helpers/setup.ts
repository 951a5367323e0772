// Loaded before the test files (bunfig.toml). The real limit comes from `npm test` (--timeout 30000);
// this covers a bare `bun test` for the first file it loads, which is as far as setDefaultTimeout reaches.
import { setDefaultTimeout } from 'bun:test';

setDefaultTimeout(30_000);
