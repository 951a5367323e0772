// UPSTREAM_TIMEOUT_MS on a stream is a limit on silence, not on the answer's length: a stream that keeps
// sending runs as long as it needs, one that goes quiet for longer is ended with an SSE error event and
// billed for what came.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { SLOW_STREAM_PIECES, startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { usageRows } from '../helpers/gateway';

setDefaultTimeout(30_000);

// 800 ms, not 250: with the suite's files running in parallel a busy machine held a steady stream's pieces
// past 250 ms apart.
const TIMEOUT_MS = 800;
let steady: FakeUpstream;
let halting: FakeUpstream;
let steadyApp: TestApp;
let haltingApp: TestApp;

beforeAll(async () => {
  // 100 pieces 40 ms apart: 4 s in all, five times the limit, but never 800 ms of silence.
  steady = await startFakeUpstream({ slowStreamDelayMs: 40 });
  // Pieces 2 s apart: the first gap is already well over the limit.
  halting = await startFakeUpstream({ slowStreamDelayMs: 2000 });
  steadyApp = await startTestApp({ env: { UPSTREAM_BASE_URL: steady.url, UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) } });
  haltingApp = await startTestApp({ env: { UPSTREAM_BASE_URL: halting.url, UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) } });
});
afterAll(async () => {
  await haltingApp?.close();
  await steadyApp?.close();
  await steady?.close();
  await halting?.close();
});

async function stream(app: TestApp) {
  const user = await registerUser(app.url);
  const { key } = await createApiKey(app.url, user.token);
  const res = await fetch(`${app.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake/slow-stream', messages: [{ role: 'user', content: 'hi' }], stream: true }),
  });
  return { res, text: await res.text(), userId: user.userId, app };
}

describe('the upstream timeout on a stream', () => {
  test('a stream that keeps sending outlives the limit many times over and is billed as usual', async () => {
    const { res, text, userId, app } = await stream(steadyApp);
    expect(res.status).toBe(200);
    for (let i = 0; i < SLOW_STREAM_PIECES; i++) expect(text).toContain(`"content":"p${i} "`);
    expect(text).not.toContain('"error"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const [row] = await usageRows(app, userId);
    expect(row).toEqual(expect.objectContaining({ status: 'ok', usage_source: 'upstream' }));
  });

  test('a stream that goes quiet for longer than the limit ends with an upstream_timeout event, billed for what came', async () => {
    const { res, text, userId, app } = await stream(haltingApp);
    expect(res.status).toBe(200);
    expect(text).toContain('"type":"upstream_timeout"');
    expect(text).not.toContain('p5 ');
    const [row] = await usageRows(app, userId);
    expect(row).toEqual(expect.objectContaining({ status: 'upstream_timeout', usage_source: 'tokenizer' }));
  });
});
