// A fake OpenAI-compatible model host: a real HTTP server speaking the chat-completions wire format,
// with behaviour chosen by the request's model so parallel tests do not interfere.
//
//   any model             answers; content "Echo: <last user text>"; usage per expectedUsage()
//   fake/slow             waits `slowMs` before answering (timeouts, concurrency)
//   fake/slow-stream      streams a piece every 100 ms, 100 pieces (client disconnect)
//   fake/error-500        500 with an OpenAI error body
//   fake/error-503        503 with an HTML body
//   fake/error-400        400 invalid_request_error
//   fake/not-found        404 model_not_found
//   fake/drop             non-stream: closes the connection without answering; stream: two chunks, then breaks
//   fake/no-usage         never sends usage, even when asked
//   fake/json-for-stream  answers JSON even to stream: true
import type { Server } from 'bun';

export interface RecordedRequest {
  path: string;
  method: string;
  headers: Record<string, string>;
  body: any;
}

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  /** Streams that ended because the client (Conduit) went away, by model. */
  aborted: string[];
  models: { id: string; created: number; owned_by: string }[];
  modelsDown: boolean;
  slowMs: number;
  pieceDelayMs: number;
  reset(): void;
  close(): Promise<void>;
}

export const PIECES = ['Hel', 'lo', ' from', ' the', ' fake', ' upstream', '.'];

/** Deterministic usage: prompt = 10 + 2 × messages; completion = pieces (stream) or 7. */
export function expectedUsage(body: { messages?: unknown[]; max_tokens?: number }) {
  const prompt = 10 + 2 * (body.messages?.length ?? 0);
  const completion = Math.min(PIECES.length, body.max_tokens ?? Infinity);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function lastUserText(body: any): string {
  const users = (body.messages ?? []).filter((m: any) => m.role === 'user');
  const last = users[users.length - 1];
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content ?? []).filter((p: any) => p.type === 'text').map((p: any) => p.text).join(' ');
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const openAiError = (status: number, message: string, type: string, code: string | null = null) =>
  json(status, { error: { message, type, param: null, code } });

export async function startFakeUpstream(options: { apiKey?: string } = {}): Promise<FakeUpstream> {
  const encoder = new TextEncoder();
  const state: FakeUpstream = {
    url: '',
    requests: [],
    aborted: [],
    models: [
      { id: 'acme/chat', created: 1_700_000_000, owned_by: 'acme' },
      { id: 'acme/large', created: 1_700_000_100, owned_by: 'acme' },
    ],
    modelsDown: false,
    slowMs: 10_000,
    pieceDelayMs: 5,
    reset() {
      state.requests.length = 0;
      state.aborted.length = 0;
      state.modelsDown = false;
      state.slowMs = 10_000;
      state.pieceDelayMs = 5;
    },
    close: async () => {},
  };

  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new Error('aborted'));
      const t = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(t);
        reject(new Error('aborted'));
      });
    });

  function streamResponse(body: any, request: Request, server: Server<unknown>): Response {
    const model = body.model as string;
    const id = `chatcmpl-${crypto.randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const withUsage = body.stream_options?.include_usage === true && model !== 'fake/no-usage';
    const pieces = model === 'fake/slow-stream' ? Array.from({ length: 100 }, (_, i) => `p${i} `) : PIECES;
    const delay = model === 'fake/slow-stream' ? 100 : state.pieceDelayMs;
    const chunk = (delta: unknown, finish: string | null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(withUsage ? { usage: null } : {}),
    });
    const usage = expectedUsage(body);
    if (model === 'fake/slow-stream') {
      usage.completion_tokens = pieces.length;
      usage.total_tokens = usage.prompt_tokens + pieces.length;
    }
    let cancelled = false;
    const markAborted = () => {
      if (!cancelled) {
        cancelled = true;
        state.aborted.push(model);
      }
    };
    request.signal.addEventListener('abort', markAborted);
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        const send = (data: unknown) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(data)}\n\n`));
        try {
          send(chunk({ role: 'assistant', content: '' }, null));
          const limit = Math.min(pieces.length, body.max_tokens ?? Infinity);
          for (let i = 0; i < limit; i++) {
            await sleep(delay, request.signal);
            if (cancelled) return;
            send(chunk({ content: pieces[i] }, null));
            if (model === 'fake/drop' && i === 1) {
              controller.error(new Error('connection reset by fake upstream'));
              return;
            }
          }
          send(chunk({}, 'stop'));
          if (withUsage) send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
          controller.enqueue(encoder.encode('data: [DONE]\n\n'));
          controller.close();
        } catch {
          markAborted();
          try {
            controller.close();
          } catch {
            // Already closed or errored.
          }
        }
      },
      cancel() {
        markAborted();
      },
    });
    void server;
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
  }

  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 60,
    async fetch(request, srv) {
      const url = new URL(request.url);
      const headers = Object.fromEntries(request.headers);
      let body: any = null;
      if (request.method === 'POST') {
        const text = await request.text();
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      state.requests.push({ path: url.pathname, method: request.method, headers, body });

      if (options.apiKey && headers.authorization !== `Bearer ${options.apiKey}`) {
        return openAiError(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
      }

      if (url.pathname === '/v1/models' && request.method === 'GET') {
        if (state.modelsDown) return openAiError(503, 'Service unavailable', 'server_error');
        return json(200, { object: 'list', data: state.models.map((m) => ({ ...m, object: 'model' })) });
      }

      if (url.pathname !== '/v1/chat/completions' || request.method !== 'POST') {
        return openAiError(404, `Unknown request URL: ${request.method} ${url.pathname}`, 'invalid_request_error');
      }
      const model = String(body?.model ?? '');
      switch (model) {
        case 'fake/error-500':
          return openAiError(500, 'The server had an error while processing your request.', 'server_error');
        case 'fake/error-503':
          return new Response('<html>Bad gateway</html>', { status: 503, headers: { 'content-type': 'text/html' } });
        case 'fake/error-400':
          return openAiError(400, "Invalid value for 'temperature': must be between 0 and 2.", 'invalid_request_error');
        case 'fake/not-found':
          return openAiError(404, 'The model `fake/not-found` does not exist', 'invalid_request_error', 'model_not_found');
        case 'fake/slow':
          try {
            await sleep(state.slowMs, request.signal);
          } catch {
            state.aborted.push(model);
            return new Response(null, { status: 499 });
          }
          break;
        case 'fake/drop':
          if (!body.stream) {
            // Close the socket without an answer.
            srv.timeout(request, 1);
            await new Promise<never>(() => {});
          }
          break;
      }

      if (body.stream === true && model !== 'fake/json-for-stream') return streamResponse(body, request, srv);

      const usage = expectedUsage(body);
      return json(200, {
        id: `chatcmpl-${crypto.randomUUID()}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        system_fingerprint: 'fp_fake',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: `Echo: ${lastUserText(body)}`, refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        ...(model === 'fake/no-usage' ? {} : { usage }),
      });
    },
  });

  state.url = `http://127.0.0.1:${server.port}/v1`;
  state.close = async () => {
    await server.stop(true);
  };
  return state;
}
