// A scripted model host for the assistant's tests: a real HTTP server speaking OpenAI's chat-completions
// wire format (non-streaming, as the assistant asks), whose answers a test writes per model — text, tool
// calls, or an error — and which records every request it was sent (the system prompt, the tools offered,
// the tool results sent back), so a test can assert what the model was given.
//
// A script is a function of the request's body and of how many requests that model has had (0 first);
// tests give each agent its own model id so that parallel scripts do not meet. A model without a script
// answers `Echo: <last user text>`. Usage: prompt = 10 + 2 × messages, completion = 5 (any answer).
// A `user` longer than OpenAI's 64 characters is refused as OpenAI refuses it (400 string_above_max_length).
// A request with `stream: true` gets the same answer as OpenAI's SSE chunks: the role and text, each tool
// call (its arguments in two pieces), the finish, usage when stream_options.include_usage asks, [DONE].
import { startFakeServer } from './fake-server';

export interface ScriptedToolCall {
  name: string;
  /** An object is JSON-encoded; a string goes as it is (to test arguments that are not JSON). */
  arguments: Record<string, unknown> | string;
  /** Sends an object `arguments` as the object itself, as some OpenAI-compatible hosts do. */
  argumentsAsObject?: boolean;
}

export type ScriptedReply = { text: string } | { toolCalls: ScriptedToolCall[]; text?: string } | { status: number; message?: string };

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

export interface ScriptedRequest {
  model: string;
  body: {
    model: string;
    messages: ChatMessage[];
    tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
    [k: string]: unknown;
  };
  headers: Record<string, string>;
}

/** May answer later (a promise): a test holds the model "thinking" while something else happens. */
export type Script = (body: ScriptedRequest['body'], index: number) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedModelHost {
  /** Base URL for UPSTREAM_BASE_URL: `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** Every chat request, in order of arrival. */
  requests: ScriptedRequest[];
  /** The requests one model was sent. */
  requestsFor(model: string): ScriptedRequest[];
  /** Sets the script of a model (replacing any before it) and forgets that model's requests. */
  script(model: string, script: Script): void;
  /** A script that plays the replies in order, then echoes. */
  sequence(model: string, replies: ScriptedReply[]): void;
  close(): Promise<void>;
}

/** The text of the last user message (string content, or its text parts joined by a space). */
export function lastUserText(body: ScriptedRequest['body']): string {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  if (Array.isArray(last.content)) {
    return last.content
      .filter((p): p is { type: string; text: string } => typeof p === 'object' && p !== null && (p as { type?: unknown }).type === 'text')
      .map((p) => p.text)
      .join(' ');
  }
  return '';
}

/** The tool messages sent back to the model, parsed: `{name of the call, result}` in order. */
export function toolResults(body: ScriptedRequest['body']): { name: string; result: any }[] {
  const names = new Map<string, string>();
  for (const m of body.messages) for (const call of m.tool_calls ?? []) names.set(call.id, call.function.name);
  return body.messages
    .filter((m) => m.role === 'tool')
    .map((m) => {
      let result: unknown = m.content;
      try {
        result = JSON.parse(String(m.content));
      } catch {
        // Not JSON: the test sees the text.
      }
      return { name: names.get(m.tool_call_id ?? '') ?? '', result };
    });
}

/** The longest `user` (end-user id) OpenAI's chat completions accept. */
export const MAX_USER_CHARS = 64;

export function startScriptedModelHost(): Promise<ScriptedModelHost> {
  const requests: ScriptedRequest[] = [];
  const scripts = new Map<string, Script>();
  const counts = new Map<string, number>();
  let callCounter = 0;

  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  const server = startFakeServer(async (request) => {
    const url = new URL(request.url);
    if (request.method === 'GET' && url.pathname === '/v1/models') {
      return json(200, { object: 'list', data: [...scripts.keys()].map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' })) });
    }
    if (request.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
      return json(404, {
        error: { message: `Unknown request URL: ${request.method} ${url.pathname}`, type: 'invalid_request_error', param: null, code: 'unknown_url' },
      });
    }
    let body: ScriptedRequest['body'];
    try {
      body = (await request.json()) as ScriptedRequest['body'];
    } catch {
      return json(400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', param: null, code: null } });
    }
    const model = String(body.model);
    requests.push({ model, body, headers: Object.fromEntries(request.headers) });
    // OpenAI's own bound on the end-user id, as its API refuses a longer one.
    if (typeof body.user === 'string' && body.user.length > MAX_USER_CHARS) {
      return json(400, {
        error: {
          message: `Invalid 'user': string too long. Expected a string with maximum length ${MAX_USER_CHARS}, but got a string with length ${body.user.length} instead.`,
          type: 'invalid_request_error',
          param: 'user',
          code: 'string_above_max_length',
        },
      });
    }
    const index = counts.get(model) ?? 0;
    counts.set(model, index + 1);
    const script = scripts.get(model);
    const reply: ScriptedReply = script ? await script(body, index) : { text: `Echo: ${lastUserText(body)}` };

    if ('status' in reply) {
      return json(reply.status, {
        error: { message: reply.message ?? 'scripted failure', type: reply.status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null },
      });
    }
    const toolCalls = 'toolCalls' in reply ? reply.toolCalls : [];
    const message: Record<string, unknown> = { role: 'assistant', content: 'text' in reply && reply.text !== undefined ? reply.text : null, refusal: null };
    if (toolCalls.length > 0) {
      message.tool_calls = toolCalls.map((call) => ({
        id: `call_${++callCounter}`,
        type: 'function',
        function: { name: call.name, arguments: typeof call.arguments === 'string' || call.argumentsAsObject ? call.arguments : JSON.stringify(call.arguments) },
      }));
    }
    const promptTokens = 10 + 2 * (Array.isArray(body.messages) ? body.messages.length : 0);
    const usage = { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 };
    if (body.stream === true) return streamed(model, message, usage, (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true);
    return json(200, {
      id: `chatcmpl-scripted-${callCounter}-${index}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop' }],
      usage,
    });
  });

  function streamed(model: string, message: Record<string, unknown>, usage: unknown, withUsage: boolean): Response {
    const base = { id: `chatcmpl-scripted-${callCounter}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
    const chunk = (delta: unknown, finish: string | null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const calls = (message.tool_calls ?? []) as { id: string; type: string; function: { name: string; arguments: string } }[];
    let text = chunk({ role: 'assistant', content: message.content ?? '' }, null);
    for (const [index, call] of calls.entries()) {
      const args = typeof call.function.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function.arguments);
      const half = Math.ceil(args.length / 2);
      text += chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: args.slice(0, half) } }] }, null);
      text += chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }, null);
    }
    text += chunk({}, calls.length > 0 ? 'tool_calls' : 'stop');
    if (withUsage) text += `data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`;
    text += 'data: [DONE]\n\n';
    return new Response(text, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
  }

  return Promise.resolve({
    url: `${server.origin}/v1`,
    requests,
    requestsFor: (model) => requests.filter((r) => r.model === model),
    script(model, script) {
      scripts.set(model, script);
      counts.set(model, 0);
      for (let i = requests.length - 1; i >= 0; i--) if (requests[i]!.model === model) requests.splice(i, 1);
    },
    sequence(model, replies) {
      this.script(model, (body, index) => replies[index] ?? { text: `Echo: ${lastUserText(body)}` });
    },
    close: () => server.close(),
  });
}
