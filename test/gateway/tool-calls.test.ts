// Tool calls end to end (issue 43 point 2) on /v1/chat/completions and /v1/responses, through the official
// OpenAI SDK and as raw bytes: the tools and tool_choice a client offers reach the model as sent, parallel
// calls come back intact, tool results go back to the model unchanged, a streamed call reaches the client
// exactly as the upstream sent it (less the usage fields Conduit asked for on its own), and an answer
// without usage is billed for the calls' names and arguments.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type OpenAI from 'openai';
import { SECOND_TOOL_CALL, TOOL_CALL, type FakeUpstream } from '../fakes/upstream';
import { countTextTokens } from '../../src/gateway/tokens';
import type { TestApp } from '../helpers/app';
import { newGatewayCustomer, settleAll, usageRows, useGatewayApp } from '../helpers/gateway';

setDefaultTimeout(30_000);

let fake: FakeUpstream;
let app: TestApp;
useGatewayApp({ ready: (s) => ({ app, fake } = s) });

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  },
  {
    type: 'function',
    function: { name: 'get_time', description: 'Time in a zone', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
  },
];
const responseTools: OpenAI.Responses.FunctionTool[] = tools.map((t) => ({
  type: 'function',
  name: t.type === 'function' ? t.function.name : '',
  description: t.type === 'function' ? (t.function.description ?? null) : null,
  parameters: t.type === 'function' ? (t.function.parameters ?? null) : null,
  strict: false,
}));
const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
/** What the two parallel calls generate, in the order they are sent. */
const BOTH_CALLS_TEXT = TOOL_CALL.name + TOOL_CALL.arguments + SECOND_TOOL_CALL.name + SECOND_TOOL_CALL.arguments;

const sentTo = (path: string) => fake.requests.filter((r) => r.path === path);

/** Reads the stream to its end, then: the plain and the streamed answer were both billed for the two calls' text. */
async function expectBothBilledByCount(userId: string, stream: AsyncIterable<unknown>) {
  for await (const _ of stream) {
    // read to the end
  }
  await settleAll(app);
  const rows = await usageRows(app, userId);
  expect(rows.map((r) => [r.stream, r.usage_source, r.completion_tokens])).toEqual([
    [false, 'tokenizer', countTextTokens(BOTH_CALLS_TEXT)],
    [true, 'tokenizer', countTextTokens(BOTH_CALLS_TEXT)],
  ]);
}

/** The events of an SSE text, each with its blank line. */
const events = (text: string) => text.split(/(?<=\n\n)/).filter((e) => e.trim() !== '');

describe('chat completions', () => {
  test('tools, tool_choice and parallel_tool_calls reach the model as sent; two parallel calls come back intact', async () => {
    const c = await newGatewayCustomer(app);
    const completion = await c.client.chat.completions.create({
      model: 'fake/parallel-tool-calls',
      messages,
      tools,
      tool_choice: 'required',
      parallel_tool_calls: true,
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = (choice.message.tool_calls ?? []).map((call) => (call.type === 'function' ? call.function : null));
    expect(calls).toEqual([{ ...TOOL_CALL }, { ...SECOND_TOOL_CALL }]);
    const [sent] = sentTo('/v1/chat/completions');
    expect(sent!.body.tools).toEqual(tools);
    expect(sent!.body.tool_choice).toBe('required');
    expect(sent!.body.parallel_tool_calls).toBe(true);
  });

  test('a named tool_choice reaches the model as sent', async () => {
    const c = await newGatewayCustomer(app);
    const toolChoice = { type: 'function' as const, function: { name: 'get_time' } };
    await c.client.chat.completions.create({ model: 'fake/tool-call', messages, tools, tool_choice: toolChoice });
    expect(sentTo('/v1/chat/completions')[0]!.body.tool_choice).toEqual(toolChoice);
  });

  test('tool results go back to the model unchanged: the assistant turn with its calls and one tool message per call', async () => {
    const c = await newGatewayCustomer(app);
    const first = await c.client.chat.completions.create({ model: 'fake/parallel-tool-calls', messages, tools });
    const assistant = first.choices[0]!.message;
    const [weather, time] = assistant.tool_calls!;
    const followUp: OpenAI.Chat.ChatCompletionMessageParam[] = [
      ...messages,
      { role: 'assistant', content: null, tool_calls: assistant.tool_calls },
      { role: 'tool', tool_call_id: weather!.id, content: '{"temperature":18,"sky":"sunny"}' },
      { role: 'tool', tool_call_id: time!.id, content: [{ type: 'text', text: '14:05' }] },
    ];
    const answer = await c.client.chat.completions.create({ model: 'acme/chat', messages: followUp, tools });
    expect(answer.choices[0]!.message.content).toBe('Echo: Weather and time in Paris?');
    const sent = sentTo('/v1/chat/completions')[1]!;
    expect(sent.body.messages).toEqual(JSON.parse(JSON.stringify(followUp)));
  });

  test('streamed parallel calls: every tool_calls delta reaches the client byte for byte as the upstream sent it', async () => {
    const c = await newGatewayCustomer(app);
    const response = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/parallel-tool-calls', messages, tools, stream: true }),
    });
    expect(response.status).toBe(200);
    const received = await response.text();
    const [upstream] = fake.streams;
    // Conduit asked for usage on its own: the usage-only chunk and the `"usage":null` fields are its to remove.
    const expected = events(upstream!)
      .filter((e) => !e.includes('"choices":[]'))
      .map((e) => e.replace(',"usage":null', ''));
    expect(events(received)).toEqual(expected);
    // Each call's opening (id, name) and its four and three argument pieces.
    expect(expected.filter((e) => e.includes('"tool_calls":['))).toHaveLength(2 + 4 + 3);
  });

  test('streamed parallel calls through the SDK assemble into both calls with their arguments', async () => {
    const c = await newGatewayCustomer(app);
    const stream = await c.client.chat.completions.create({
      model: 'fake/parallel-tool-calls',
      messages,
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const calls: { name: string; arguments: string }[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        calls[delta.index] ??= { name: '', arguments: '' };
        calls[delta.index]!.name += delta.function?.name ?? '';
        calls[delta.index]!.arguments += delta.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(calls).toEqual([{ ...TOOL_CALL }, { ...SECOND_TOOL_CALL }]);
    expect(finish).toBe('tool_calls');
  });

  test('without usage from the upstream, the calls’ names and arguments are billed as completion tokens, plain and streamed', async () => {
    const c = await newGatewayCustomer(app);
    await c.client.chat.completions.create({ model: 'fake/no-usage-parallel-tool-calls', messages, tools });
    const stream = await c.client.chat.completions.create({ model: 'fake/no-usage-parallel-tool-calls', messages, tools, stream: true });
    await expectBothBilledByCount(c.userId, stream);
  });
});

describe('responses', () => {
  test('tools and tool_choice reach the model as sent; parallel function calls come back intact', async () => {
    const c = await newGatewayCustomer(app);
    const response = await c.client.responses.create({
      model: 'fake/parallel-tool-calls',
      input: 'Weather and time in Paris?',
      tools: responseTools,
      tool_choice: 'required',
    });
    const calls = response.output.map((item) => (item.type === 'function_call' ? { name: item.name, arguments: item.arguments } : null));
    expect(calls).toEqual([{ ...TOOL_CALL }, { ...SECOND_TOOL_CALL }]);
    const [sent] = sentTo('/v1/responses');
    expect(sent!.body.tools).toEqual(responseTools);
    expect(sent!.body.tool_choice).toBe('required');
  });

  test('function_call_output items go back to the model unchanged', async () => {
    const c = await newGatewayCustomer(app);
    const first = await c.client.responses.create({ model: 'fake/parallel-tool-calls', input: 'Weather and time in Paris?', tools: responseTools });
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: 'user', content: 'Weather and time in Paris?' },
      ...first.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call'),
      ...first.output.flatMap((item) =>
        item.type === 'function_call' ? [{ type: 'function_call_output' as const, call_id: item.call_id, output: `result of ${item.name}` }] : [],
      ),
    ];
    const answer = await c.client.responses.create({ model: 'acme/chat', input, tools: responseTools });
    expect(answer.output_text).toBe('Echo: Weather and time in Paris?');
    expect(sentTo('/v1/responses')[1]!.body.input).toEqual(JSON.parse(JSON.stringify(input)));
  });

  test('streamed function calls reach the client event for event as the upstream sent them', async () => {
    const c = await newGatewayCustomer(app);
    const stream = await c.client.responses.create({ model: 'fake/parallel-tool-calls', input: 'Weather and time in Paris?', tools: responseTools, stream: true });
    const received: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) received.push(event);
    const upstream = events(fake.streams[0]!).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
    // The final event's usage carries the cost Conduit adds; everything else is the upstream's.
    const withoutCost = received.map((e) =>
      e.type === 'response.completed' ? { ...e, response: { ...e.response, usage: { ...e.response.usage, cost: undefined } } } : e,
    );
    expect(JSON.parse(JSON.stringify(withoutCost))).toEqual(upstream);
    const args = received.filter((e) => e.type === 'response.function_call_arguments.done').map((e) => e.arguments);
    expect(args).toEqual([TOOL_CALL.arguments, SECOND_TOOL_CALL.arguments]);
  });

  test('without usage from the upstream, function names and arguments are billed as output tokens, plain and streamed', async () => {
    const c = await newGatewayCustomer(app);
    await c.client.responses.create({ model: 'fake/no-usage-parallel-tool-calls', input: 'Weather and time in Paris?', tools: responseTools });
    const stream = await c.client.responses.create({
      model: 'fake/no-usage-parallel-tool-calls',
      input: 'Weather and time in Paris?',
      tools: responseTools,
      stream: true,
    });
    await expectBothBilledByCount(c.userId, stream);
  });
});
