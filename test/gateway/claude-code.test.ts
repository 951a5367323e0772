// Claude Code itself (npm @anthropic-ai/claude-code, print mode) with ANTHROPIC_BASE_URL at Conduit and a
// Conduit key, as issue 43's "Done when" asks: it answers through an openai provider and through an anthropic
// one, and completes a tool round trip — the model asks for Read of a file, Claude Code reads it, and the model
// is sent the file's content in the next request. What Claude Code sends is recorded in
// /work/briefs/claude-code-findings.md's terms: /v1/messages?beta=true, streamed, ~24 tools, anthropic-beta.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic';
import { type ScriptedModelHost, startScriptedModelHost, toolResults } from '../fakes/scripted-model';
import { runClaudeCode } from '../helpers/claude-code';
import { settleAll, usageRows } from '../helpers/gateway';
import { routingHarness } from '../helpers/routing';

setDefaultTimeout(60_000);

const ADMIN = 'claude-code-admin@example.com';
const harness = routingHarness((home) => ({ UPSTREAM_BASE_URL: home, ADMIN_EMAILS: ADMIN }), ADMIN);

const SECRET = 'the secret word is pelican';
const ANTHROPIC_KEY = 'sk-ant-provider-secret';
let scripted: ScriptedModelHost;
let anthropic: FakeAnthropic;
let work: string;
let file: string;

beforeAll(async () => {
  scripted = await startScriptedModelHost();
  const openaiProvider = await harness.addProvider(scripted.url);
  await harness.setRoute('cc-openai/*', [{ providerId: openaiProvider }]);
  anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  const anthropicProvider = await harness.addProvider(anthropic.url, { apiKey: ANTHROPIC_KEY, protocol: 'anthropic' });
  // Served under the client's own ids, so Claude Code's bodies pass through untouched.
  for (const model of ['cc-anthropic/plain', 'fake/read-file']) await harness.setRoute(model, [{ providerId: anthropicProvider }]);
  work = mkdtempSync(join(tmpdir(), 'claude-code-test-'));
  file = join(work, 'note.txt');
  writeFileSync(file, `${SECRET}\n`);
});
/** Claude Code asked to read the test's file, with Read allowed: a run of two turns that ended well; its output. */
async function readTheFile(model: string) {
  const c = await harness.customer();
  const { exitCode, output } = await runClaudeCode({ baseUrl: harness.app.url, key: c.key, model, prompt: `Прочитай ${file}`, cwd: work, allowedTools: ['Read'] });
  expect({ exitCode, isError: output.is_error, turns: output.num_turns }).toEqual({ exitCode: 0, isError: false, turns: 2 });
  return output;
}

afterAll(async () => {
  await scripted?.close();
  await anthropic?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('Claude Code → /v1/messages → openai provider', () => {
  test('print mode answers with the model’s text; the request is billed as a messages call', async () => {
    const c = await harness.customer();
    scripted.script('cc-openai/plain', () => ({ text: 'Привет от модели через Conduit' }));
    const { exitCode, output, stderr } = await runClaudeCode({ baseUrl: harness.app.url, key: c.key, model: 'cc-openai/plain', prompt: 'say hi' });
    expect({ exitCode, isError: output.is_error, result: output.result, stderr }).toEqual({
      exitCode: 0,
      isError: false,
      result: 'Привет от модели через Conduit',
      stderr: '',
    });
    // Claude Code's tools reached the model as functions, its system prompt as a system message.
    const [sent] = scripted.requestsFor('cc-openai/plain');
    expect(sent!.body.tools!.length).toBeGreaterThanOrEqual(20);
    expect(sent!.body.tools!.map((t) => t.function.name)).toContain('Read');
    expect(sent!.body.messages[0]!.role).toBe('system');
    await settleAll(harness.app);
    const rows = (await usageRows(harness.app, c.userId)) as { model: string; status: string; stream: boolean; endpoint?: string }[];
    expect(rows.map((r) => [r.model, r.endpoint, r.status, r.stream])).toEqual([['cc-openai/plain', 'messages', 'ok', true]]);
  });

  test('a tool round trip: the model asks for Read, Claude Code reads the file, the model sees its content', async () => {
    scripted.script('cc-openai/reader', (body) => {
      const results = toolResults(body);
      if (results.length > 0) return { text: `Файл прочитан: ${String(results[0]!.result).includes(SECRET) ? SECRET : 'не то'}` };
      return { toolCalls: [{ name: 'Read', arguments: { file_path: file } }] };
    });
    const output = await readTheFile('cc-openai/reader');
    expect(output.result).toBe(`Файл прочитан: ${SECRET}`);
    const requests = scripted.requestsFor('cc-openai/reader');
    expect(requests).toHaveLength(2);
    const [result] = toolResults(requests[1]!.body);
    expect(result!.name).toBe('Read');
    expect(String(result!.result)).toContain(SECRET);
  });

  test('the key as Authorization: Bearer (ANTHROPIC_AUTH_TOKEN) works as x-api-key does', async () => {
    const c = await harness.customer();
    scripted.script('cc-openai/bearer', () => ({ text: 'ok' }));
    const { output } = await runClaudeCode({ baseUrl: harness.app.url, key: c.key, model: 'cc-openai/bearer', prompt: 'hi', bearer: true });
    expect([output.is_error, output.result]).toEqual([false, 'ok']);
  });

  test('a wrong key: Claude Code reports the 401 it was given', async () => {
    const { exitCode, output } = await runClaudeCode({ baseUrl: harness.app.url, key: 'cdt-not-a-key', model: 'cc-openai/plain', prompt: 'hi' });
    expect(exitCode).toBe(1);
    expect([output.is_error, output.api_error_status]).toEqual([true, 401]);
  });
});

describe('Claude Code → /v1/messages → anthropic provider', () => {
  test('print mode answers; the provider gets Claude Code’s streamed request with its tools and beta header, and the provider’s key', async () => {
    const c = await harness.customer();
    const { exitCode, output, stderr } = await runClaudeCode({ baseUrl: harness.app.url, key: c.key, model: 'cc-anthropic/plain', prompt: 'say hi' });
    expect({ exitCode, isError: output.is_error, stderr }).toEqual({ exitCode: 0, isError: false, stderr: '' });
    // The fake echoes the last user text: Claude Code's prompt is its last text block.
    expect(output.result).toStartWith('Echo: ');
    expect(output.result).toEndWith('say hi');
    const [sent] = anthropic.requests.filter((r) => r.body?.model === 'cc-anthropic/plain');
    expect(sent!.path).toBe('/v1/messages');
    expect(sent!.body.stream).toBe(true);
    expect(sent!.body.tools.length).toBeGreaterThanOrEqual(20);
    expect(sent!.headers['anthropic-beta']).toContain('claude-code-');
    expect(sent!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(JSON.stringify(sent!.headers)).not.toContain(c.key);
  });

  test('a tool round trip: the model asks for Read, Claude Code reads the file, the model sees its content', async () => {
    const output = await readTheFile('fake/read-file');
    // The fake answers `Tool said: <the tool result>`: Read's output, the file with its line numbers.
    expect(output.result).toStartWith('Tool said: ');
    expect(output.result).toContain(SECRET);
    const requests = anthropic.requests.filter((r) => r.body?.model === 'fake/read-file');
    expect(requests).toHaveLength(2);
    const last = requests[1]!.body.messages.at(-1);
    const result = last.content.find((b: { type: string }) => b.type === 'tool_result');
    expect(result.tool_use_id).toBe('toolu_read');
    expect(JSON.stringify(result.content)).toContain(SECRET);
  });
});
