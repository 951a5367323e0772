// The conformance list of issue 43 point 2 for the official `openai` SDK: each case below is something a
// client of OpenAI does, run through Conduit against the OpenAI-compatible fake, on /v1/chat/completions
// and /v1/responses. The test names are the list README's «Совместимость с клиентами» section repeats.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import OpenAI from 'openai';
import { expectedContent, expectedResponseText, FAKE_REPLY, SECOND_TOOL_CALL, TOOL_CALL, type FakeUpstream } from '../fakes/upstream';
import type { TestApp } from '../helpers/app';
import { newGatewayCustomer, openaiClient, setBalanceNano, useGatewayApp } from '../helpers/gateway';

setDefaultTimeout(30_000);

let fake: FakeUpstream;
let app: TestApp;
useGatewayApp({ ready: (s) => ({ app, fake } = s) });

/** A 1×1 transparent PNG, as clients send a picture inline. */
const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const QUESTION = 'Weather and time in Paris?';
const chatTools: OpenAI.Chat.ChatCompletionTool[] = [TOOL_CALL.name, SECOND_TOOL_CALL.name].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { city: { type: 'string' } } } },
}));
const responseTools: OpenAI.Responses.FunctionTool[] = chatTools.map((t) => ({
  type: 'function',
  name: t.type === 'function' ? t.function.name : '',
  parameters: t.type === 'function' ? (t.function.parameters ?? null) : null,
  strict: false,
}));
const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
const CALLS = [{ ...TOOL_CALL }, { ...SECOND_TOOL_CALL }];

const sentTo = (path: string) => fake.requests.filter((r) => r.path === path);

/** The error a call rejects with (the test fails if it resolves). */
async function failure(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

/** The error cases, the same on both endpoints: `ask(client, model)` makes one request. */
function errorCases(ask: (client: OpenAI, model: string) => Promise<unknown>) {
  test('error 401: a wrong key is AuthenticationError', async () => {
    const error = await failure(ask(openaiClient(app, 'sk-conduit-not-a-key'), 'acme/chat'));
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.status).toBe(401);
  });

  test('error 400: an invalid request is BadRequestError, with the param named', async () => {
    const c = await newGatewayCustomer(app);
    const ours = await failure(ask(c.client, 'no-owner-in-this-model-id'));
    expect(ours).toBeInstanceOf(OpenAI.BadRequestError);
    expect(ours.param).toBe('model');
    const upstream = await failure(ask(c.client, 'fake/error-400'));
    expect(upstream).toBeInstanceOf(OpenAI.BadRequestError);
    expect([upstream.param, upstream.code]).toEqual(['temperature', 'invalid_value']);
  });

  test('error 402: an empty balance is APIError 402 insufficient_quota', async () => {
    const c = await newGatewayCustomer(app);
    await setBalanceNano(app, c.userId, 0n);
    const error = await failure(ask(c.client, 'acme/chat'));
    expect([error.status, error.code]).toEqual([402, 'insufficient_quota']);
  });

  test('error 429: an upstream rate limit is RateLimitError with its retry-after', async () => {
    const c = await newGatewayCustomer(app);
    const error = await failure(ask(c.client, 'fake/error-429'));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.headers?.get('retry-after')).toBe('1');
  });

  test('error 5xx: an upstream failure is InternalServerError 502', async () => {
    const c = await newGatewayCustomer(app);
    const error = await failure(ask(c.client, 'fake/error-500'));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect([error.status, error.code]).toEqual([502, 'upstream_error']);
  });
}

describe('openai SDK → /v1/chat/completions', () => {
  test('plain', async () => {
    const c = await newGatewayCustomer(app);
    const completion = await c.client.chat.completions.create({ model: 'acme/chat', messages });
    expect(completion.choices[0]!.message.content).toBe(expectedContent({ messages }));
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  test('stream, with usage', async () => {
    const c = await newGatewayCustomer(app);
    const stream = await c.client.chat.completions.create({ model: 'acme/chat', messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(FAKE_REPLY);
    expect(usage?.completion_tokens).toBe(7);
  });

  test('tools: parallel tool calls, plain', async () => {
    const c = await newGatewayCustomer(app);
    const completion = await c.client.chat.completions.create({ model: 'fake/parallel-tool-calls', messages, tools: chatTools, tool_choice: 'auto' });
    const calls = completion.choices[0]!.message.tool_calls!.map((call) => (call.type === 'function' ? call.function : null));
    expect(calls).toEqual(CALLS);
  });

  test('tools: parallel tool calls, streamed (the SDK’s stream helper assembles them)', async () => {
    const c = await newGatewayCustomer(app);
    const runner = c.client.chat.completions.stream({ model: 'fake/parallel-tool-calls', messages, tools: chatTools });
    const final = await runner.finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!.map((call) =>
      call.type === 'function' ? { name: call.function.name, arguments: call.function.arguments } : null,
    );
    expect(calls).toEqual(CALLS);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });

  test('tool results sent back', async () => {
    const c = await newGatewayCustomer(app);
    const first = await c.client.chat.completions.create({ model: 'fake/parallel-tool-calls', messages, tools: chatTools });
    const assistant = first.choices[0]!.message;
    const followUp: OpenAI.Chat.ChatCompletionMessageParam[] = [
      ...messages,
      { role: 'assistant', content: null, tool_calls: assistant.tool_calls },
      ...assistant.tool_calls!.map((call) => ({ role: 'tool' as const, tool_call_id: call.id, content: `result of ${call.id}` })),
    ];
    const answer = await c.client.chat.completions.create({ model: 'acme/chat', messages: followUp, tools: chatTools });
    expect(answer.choices[0]!.message.content).toBe(`Echo: ${QUESTION}`);
    expect(sentTo('/v1/chat/completions')[1]!.body.messages).toEqual(JSON.parse(JSON.stringify(followUp)));
  });

  test('images: image_url parts reach the model', async () => {
    const c = await newGatewayCustomer(app);
    const content: OpenAI.Chat.ChatCompletionContentPart[] = [
      { type: 'text', text: 'What is here?' },
      { type: 'image_url', image_url: { url: PIXEL, detail: 'low' } },
    ];
    const completion = await c.client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content }] });
    expect(completion.choices[0]!.message.content).toBe('Echo: What is here?');
    expect(sentTo('/v1/chat/completions')[0]!.body.messages[0].content).toEqual(content);
  });

  test('error mid-stream: the SDK throws APIError while reading', async () => {
    const c = await newGatewayCustomer(app);
    const stream = await c.client.chat.completions.create({ model: 'fake/stream-error', messages, stream: true });
    const error = await failure(
      (async () => {
        for await (const _ of stream) {
          // read until it fails
        }
      })(),
    );
    expect(error.message).toContain('error while streaming');
  });

  errorCases((client, model) => client.chat.completions.create({ model, messages }));
});

describe('openai SDK → /v1/responses', () => {
  test('plain', async () => {
    const c = await newGatewayCustomer(app);
    const response = await c.client.responses.create({ model: 'acme/chat', input: QUESTION });
    expect(response.output_text).toBe(expectedResponseText({ input: QUESTION }));
  });

  test('stream, with usage', async () => {
    const c = await newGatewayCustomer(app);
    const stream = c.client.responses.stream({ model: 'acme/chat', input: QUESTION });
    let text = '';
    stream.on('response.output_text.delta', (event) => {
      text += event.delta;
    });
    const final = await stream.finalResponse();
    expect(text).toBe(FAKE_REPLY);
    expect(final.output_text).toBe(FAKE_REPLY);
    expect(final.usage?.output_tokens).toBe(7);
  });

  test('tools: parallel function calls, plain', async () => {
    const c = await newGatewayCustomer(app);
    const response = await c.client.responses.create({ model: 'fake/parallel-tool-calls', input: QUESTION, tools: responseTools, tool_choice: 'auto' });
    expect(response.output.map((item) => (item.type === 'function_call' ? { name: item.name, arguments: item.arguments } : null))).toEqual(CALLS);
  });

  test('tools: parallel function calls, streamed', async () => {
    const c = await newGatewayCustomer(app);
    const final = await c.client.responses.stream({ model: 'fake/parallel-tool-calls', input: QUESTION, tools: responseTools }).finalResponse();
    expect(final.output.map((item) => (item.type === 'function_call' ? { name: item.name, arguments: item.arguments } : null))).toEqual(CALLS);
  });

  test('tool results sent back', async () => {
    const c = await newGatewayCustomer(app);
    const first = await c.client.responses.create({ model: 'fake/parallel-tool-calls', input: QUESTION, tools: responseTools });
    const calls = first.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: 'user', content: QUESTION },
      ...calls,
      ...calls.map((call) => ({ type: 'function_call_output' as const, call_id: call.call_id, output: `result of ${call.name}` })),
    ];
    const answer = await c.client.responses.create({ model: 'acme/chat', input, tools: responseTools });
    expect(answer.output_text).toBe(`Echo: ${QUESTION}`);
    expect(sentTo('/v1/responses')[1]!.body.input).toEqual(JSON.parse(JSON.stringify(input)));
  });

  test('images: input_image parts reach the model', async () => {
    const c = await newGatewayCustomer(app);
    const content: OpenAI.Responses.ResponseInputContent[] = [
      { type: 'input_text', text: 'What is here?' },
      { type: 'input_image', image_url: PIXEL, detail: 'low' },
    ];
    const response = await c.client.responses.create({ model: 'acme/chat', input: [{ role: 'user', content }] });
    expect(response.output_text).toBe('Echo: What is here?');
    expect(sentTo('/v1/responses')[0]!.body.input[0].content).toEqual(content);
  });

  test('error mid-stream: the SDK yields the error event', async () => {
    const c = await newGatewayCustomer(app);
    const stream = await c.client.responses.create({ model: 'fake/stream-error', input: QUESTION, stream: true });
    const types: string[] = [];
    let message = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'error') message = event.message;
    }
    expect(types).toEqual(['response.output_text.delta', 'error']);
    expect(message).toContain('error while streaming');
  });

  errorCases((client, model) => client.responses.create({ model, input: QUESTION }));
});
