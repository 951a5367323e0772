// The scripted model host speaks what the official SDK reads: text, tool calls, errors, per-model scripts.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { lastUserText, startScriptedModelHost, toolResults, type ScriptedModelHost } from '../fakes/scripted-model';

let host: ScriptedModelHost;
let client: OpenAI;

beforeAll(async () => {
  host = await startScriptedModelHost();
  client = new OpenAI({ baseURL: host.url, apiKey: 'unused', maxRetries: 0 });
});
afterAll(() => host.close());

test('a sequence: a tool call the SDK parses, then text after the tool result; the requests are recorded', async () => {
  host.sequence('salon/a', [{ toolCalls: [{ name: 'list_services', arguments: {} }] }, { text: 'Стрижка — 1500 ₽' }]);
  const first = await client.chat.completions.create({ model: 'salon/a', messages: [{ role: 'user', content: 'Сколько стоит стрижка?' }] });
  const call = first.choices[0]!.message.tool_calls![0]!;
  expect(first.choices[0]!.finish_reason).toBe('tool_calls');
  expect(call.type === 'function' && call.function.name).toBe('list_services');
  const second = await client.chat.completions.create({
    model: 'salon/a',
    messages: [
      { role: 'user', content: 'Сколько стоит стрижка?' },
      first.choices[0]!.message,
      { role: 'tool', tool_call_id: call.id, content: JSON.stringify({ services: [{ title: 'Стрижка' }] }) },
    ],
  });
  expect(second.choices[0]!.message.content).toBe('Стрижка — 1500 ₽');
  const sent = host.requestsFor('salon/a');
  expect(sent).toHaveLength(2);
  expect(lastUserText(sent[0]!.body)).toBe('Сколько стоит стрижка?');
  expect(toolResults(sent[1]!.body)).toEqual([{ name: 'list_services', result: { services: [{ title: 'Стрижка' }] } }]);
  // Past the script: an echo.
  const third = await client.chat.completions.create({ model: 'salon/a', messages: [{ role: 'user', content: 'ещё' }] });
  expect(third.choices[0]!.message.content).toBe('Echo: ещё');
});

test('an error reply is OpenAI’s error; another model’s script is its own', async () => {
  host.script('salon/down', () => ({ status: 503, message: 'overloaded' }));
  const error = await client.chat.completions.create({ model: 'salon/down', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
  expect(error).toBeInstanceOf(OpenAI.APIError);
  expect(error.status).toBe(503);
  const other = await client.chat.completions.create({ model: 'salon/b', messages: [{ role: 'user', content: [{ type: 'text', text: 'часть' }] }] });
  expect(other.choices[0]!.message.content).toBe('Echo: часть');
});
