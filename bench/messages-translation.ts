// CPU a /v1/messages request spends on translation over chat's own work (issue 43: at most 50 µs a request):
// `bun bench/messages-translation.ts`. Times, per request, the Messages schema check, the chat request built
// and serialised for an openai provider, and the answer brought back (a plain answer, and a 7-piece stream
// rewritten into Anthropic's events) — for a one-message request and for Claude Code's recorded 78 KB request
// with 24 tools (test/fakes/claude-code-request.json); chat's own parse of the same kind of request beside it.
import recorded from '../test/fakes/claude-code-request.json';
import { chatRequestOf } from '../src/gateway/anthropic/chat-request';
import { messagesAnswerOf } from '../src/gateway/anthropic/messages-answer';
import { messagesStreamOf } from '../src/gateway/anthropic/messages-stream';
import { messagesRequestSchema } from '../src/gateway/anthropic/schema';
import { chatRequestSchema, plainChatRequest, upstreamChatText } from '../src/gateway/request';

function best(name: string, rounds: number, fn: () => void | Promise<void>) {
  return (async () => {
    let bestUs = Infinity;
    for (let round = 0; round < 5; round++) {
      const t = Bun.nanoseconds();
      for (let i = 0; i < rounds; i++) await fn();
      bestUs = Math.min(bestUs, (Bun.nanoseconds() - t) / rounds / 1000);
    }
    console.log(`${name}: ${bestUs.toFixed(1)} µs/request`);
  })();
}

const small = JSON.stringify({ model: 'acme/chat', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello in one word.' }] });
const large = JSON.stringify(recorded.body);
const chatSmall = JSON.stringify({ model: 'acme/chat', messages: [{ role: 'user', content: 'Say hello in one word.' }] });
const chatLarge = JSON.stringify(chatRequestOf(messagesRequestSchema.parse(recorded.body)));
const answer = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the fake upstream.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
});
const encoder = new TextEncoder();
const chunks = ['Hel', 'lo', ' from', ' the', ' fake', ' upstream', '.'].map((piece) =>
  encoder.encode(
    `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"acme/chat","choices":[{"index":0,"delta":{"content":"${piece}"},"finish_reason":null}]}\n\n`,
  ),
);
chunks.push(encoder.encode('data: {"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}\n\ndata: [DONE]\n\n'));

let sink = 0;
const request = (text: string) => () => {
  const body = messagesRequestSchema.parse(JSON.parse(text));
  sink += JSON.stringify(chatRequestOf(body)).length;
};
const chat = (text: string) => () => {
  const json = JSON.parse(text);
  const body = plainChatRequest(json) ?? chatRequestSchema.parse(json);
  sink += upstreamChatText(text, body, { streamUsage: false, completionCap: 4096 }).length;
};
async function stream() {
  const rewrite = messagesStreamOf({ model: 'acme/chat', estimatePrompt: () => 12 });
  const writer = rewrite.stream.writable.getWriter();
  const reader = rewrite.stream.readable.getReader();
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      sink += value.byteLength;
    }
  })();
  for (const chunk of chunks) await writer.write(chunk);
  await writer.close();
  await reading;
}

await best('chat: parse + upstream text, one message', 20_000, chat(chatSmall));
await best('messages: schema + chat request + text, one message', 20_000, request(small));
await best('chat: parse + upstream text, Claude Code’s request as chat', 500, chat(chatLarge));
await best('messages: schema + chat request + text, Claude Code’s request', 500, request(large));
await best('messages: a chat answer as a Messages answer', 20_000, () => {
  sink += messagesAnswerOf(answer, 'acme/chat')!.length;
});
await best('messages: a 7-piece chat stream as Messages events', 5_000, stream);
console.log(sink > 0 ? '' : '');

// The large request's parts: the parse both routes pay, then what only /v1/messages adds.
const parsedLarge = JSON.parse(large);
const checkedLarge = messagesRequestSchema.parse(parsedLarge);
await best('(both routes) JSON.parse of Claude Code’s request', 500, () => {
  sink += JSON.parse(large).messages.length;
});
await best('messages only: schema check of Claude Code’s request', 500, () => {
  sink += messagesRequestSchema.parse(parsedLarge).messages.length;
});
await best('messages only: chat request of Claude Code’s request', 500, () => {
  sink += chatRequestOf(checkedLarge).messages.length;
});
await best('openai provider only: that chat request as text', 500, () => {
  sink += JSON.stringify(chatRequestOf(checkedLarge)).length;
});
console.log(sink > 0 ? '' : '');
