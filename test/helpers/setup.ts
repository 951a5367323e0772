// Loaded before the test files (bunfig.toml). The real limit comes from `npm test` (--timeout 30000);
// this covers a bare `bun test` for the first file it loads, which is as far as setDefaultTimeout reaches.
// Tried with bun 1.4.4 on three 6 s tests in three files, no --timeout: setDefaultTimeout here, again in a
// beforeAll or a beforeEach hook here, jest.setTimeout here, and `timeout = 30000` in bunfig's [test] — each
// time the first file passed and the others timed out at 5 s. So the test files keep their own call.
import { setDefaultTimeout } from 'bun:test';

setDefaultTimeout(30_000);
