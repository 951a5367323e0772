// Claude Code itself (npm @anthropic-ai/claude-code, print mode) with ANTHROPIC_BASE_URL at Conduit and a
// Conduit key, as issue 43's "Done when" asks: it answers through an openai provider and through an anthropic
// one, and completes a tool round trip — the model asks for Read of a file, Claude Code reads it, and the model
// is sent the file's content in the next request. What Claude Code sends is recorded in
// /work/briefs/claude-code-findings.md's terms: /v1/messages?beta=true, streamed, ~24 tools, anthropic-beta.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { type ScriptedModelHost, startScriptedModelHost, toolResults } from '../fakes/scripted-model';
import { runClaudeCode } from '../helpers/claude-code';
import { settleAll, usageRows } from '../helpers/gateway';
import { routingHarness } from '../helpers/routing';

setDefaultTimeout(60_000);

const ADMIN = 'claude-code-admin@example.com';
const harness = routingHarness((home) => ({ UPSTREAM_BASE_URL: home, ADMIN_EMAILS: ADMIN }), ADMIN);

const SECRET = 'the secret word is pelican';
let scripted: ScriptedModelHost;
let work: string;
let file: string;

beforeAll(async () => {
  scripted = await startScriptedModelHost();
  const openaiProvider = await harness.addProvider(scripted.url);
  await harness.setRoute('cc-openai/*', [{ providerId: openaiProvider }]);
  work = mkdtempSync(join(tmpdir(), 'claude-code-test-'));
  file = join(work, 'note.txt');
  writeFileSync(file, `${SECRET}\n`);
});
afterAll(async () => {
  await scripted?.close();
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
    const rows = await usageRows(harness.app, c.userId);
    expect(rows.map((r) => [r.model, r.status, r.stream])).toEqual([['cc-openai/plain', 'ok', true]]);
  });

  test('a tool round trip: the model asks for Read, Claude Code reads the file, the model sees its content', async () => {
    const c = await harness.customer();
    scripted.script('cc-openai/reader', (body) => {
      const results = toolResults(body);
      if (results.length > 0) return { text: `Файл прочитан: ${String(results[0]!.result).includes(SECRET) ? SECRET : 'не то'}` };
      return { toolCalls: [{ name: 'Read', arguments: { file_path: file } }] };
    });
    const { exitCode, output } = await runClaudeCode({
      baseUrl: harness.app.url,
      key: c.key,
      model: 'cc-openai/reader',
      prompt: `Прочитай ${file}`,
      cwd: work,
      allowedTools: ['Read'],
    });
    expect({ exitCode, isError: output.is_error, turns: output.num_turns }).toEqual({ exitCode: 0, isError: false, turns: 2 });
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
