// A fake OpenAI-compatible model host: a real HTTP server speaking the chat-completions wire format
// (bodies, error bodies, SSE framing, headers), with behaviour chosen by the request's model so that
// parallel tests sharing one fake do not interfere.
//
// Answers, for any model not listed below:
//   non-streaming  content `Echo: <text of the last user message>` (text parts joined by a space)
//   streaming      role chunk, then PIECES ("Hello from the fake upstream.") one chunk each, `pieceDelayMs`
//                  apart, then a finish chunk, then (only with stream_options.include_usage) a usage chunk
//                  with `choices: []`, then `data: [DONE]`. With include_usage every other chunk carries
//                  `"usage":null`, as OpenAI's do.
//   usage          expectedUsage(body): prompt = 10 + 2 × messages; completion = the piece count (7),
//                  capped by max_completion_tokens / max_tokens, whatever the echo's length. A capped
//                  answer stops early in the stream and has finish_reason "length".
//
// Special models:
//   fake/tool-call        calls get_weather({"city":"Paris"}); streamed as tool_calls deltas, finish "tool_calls"
//   fake/escalate         (non-streaming) calls the first tool the request offers with {"reason": ESCALATION_REASON}
//   fake/no-usage         never sends usage, even when asked
//   fake/no-usage-tool-call   fake/tool-call's answer without usage
//   fake/parallel-tool-calls  calls get_weather({"city":"Paris"}) and get_time({"zone":"Europe/Paris"}) at once;
//                         streamed one call after the other (index 0, then 1); fake/no-usage-parallel-tool-calls
//                         the same without usage. On /responses these models (and fake/tool-call) answer
//                         function_call items, streamed as output_item.added, function_call_arguments.delta…
//   fake/json-for-stream  answers JSON even to stream: true
//   fake/slow             waits `slowMs` (10 s) before the headers, then answers as above; stops waiting
//                         when the client leaves
//   fake/held-stream      (stream) the role chunk at once, then nothing until `releaseHeld()`, then one piece, the
//                         finish chunk, usage when asked and [DONE]; `heldOpen` / `peakHeldOpen` count them
//   fake/slow-stream      SLOW_STREAM_PIECES (100) pieces `slowStreamDelayMs` (200 ms) apart, for disconnects
//   fake/drop             stream: headers, role chunk and two pieces ("Hel", "lo"), then the connection is cut;
//                         non-stream: the connection is cut before any answer
//   fake/reset            the connection is cut before any answer, streaming or not
//   fake/error-<status>   (chat and /responses) the errors below
//   fake/error-400        400 invalid_request_error
//   fake/error-429        429 rate_limit_exceeded with retry-after
//   fake/error-500        500 server_error
//   fake/error-502        502 with an HTML body, as a proxy in front of a host answers
//   fake/error-503        503 server_error (overloaded)
//   fake/unknown-model, fake/not-found*   404 model_not_found
//   fake/usage-<P>-<C>    answers as usual but reports usage prompt P, completion C (any size, whatever the cap:
//                         an upstream that ignores max_tokens)
//   fake/long-<C>         a model that would write C completion tokens: reports C, capped by max_completion_tokens /
//                         max_tokens (max_output_tokens on /responses) as a well-behaved host does; the text is the usual
//   fake/usage-garbage    reports usage figures that are not counts: strings, a negative number, NaN as text
//   any model in `reportedUsage` (model id → usage object): that exact usage in its chat answer, its stream's usage
//                         chunk and its /responses answer or final event, details included (cached, cache-write,
//                         reasoning, image tokens, or nonsense); the text is the usual one; reset() empties it
//   fake/huge-json-<N>    (chat, /responses, /embeddings, not streamed) a 200 JSON chat answer of about N bytes,
//                         sent in 64 KB pieces without a content-length
//   fake/stream-error     (chat and /responses streams) one piece, then an error event (OpenAI's shape:
//                         {"error":{…}} in chat, `event: error` on /responses), then the stream ends; with
//                         `echoAuthorization` its message echoes the Authorization header as errors do
//   fake/endless-line-<N> (chat and /responses streams) the opening event, then a data line of N more bytes that
//                         never ends, then the connection closes
//
// POST {url}/audio/transcriptions: test/fakes/upstream-audio.ts (the transcript in each response_format; the form recorded).
// POST {url}/embeddings: OpenAI's list shape with a deterministic unit vector per input (fakeEmbedding;
// `dimensions` wide, EMBEDDING_DIMENSIONS by default; base64 of little-endian float32 with
// encoding_format base64) and usage {prompt_tokens: expectedEmbeddingTokens, total_tokens}. fake/no-usage
// sends no usage; fake/not-found* 404; fake/error-500 500; fake/usage-<P>-<C> reports P.
// POST {url}/responses: a Responses API object (`Echo: <last user text>`, usage expectedResponseUsage), or
// with stream: true the real event sequence (`event: <type>` + `data: {type, …, sequence_number}`:
// response.created, response.in_progress, output_item.added, content_part.added, one
// response.output_text.delta per piece, output_text.done, content_part.done, output_item.done,
// response.completed with usage). fake/no-usage: no usage; fake/slow-stream: 100 slow deltas; fake/drop:
// the connection is cut after the deltas "Hel" and "lo".
// GET|DELETE {url}/responses/{id} serve the responses created. `responsesMissing` answers every
// /responses route with the 404 of an unknown URL, as a host without the Responses API does.
//
// Also: GET {url}/models (the `models` list; `modelsDown` makes it 503; a model given `pricing` carries it
// as OpenRouter's list does: USD per token as decimal strings), GET {url}/models/{id}; with an
// `apiKey` every route wants `Authorization: Bearer <apiKey>` and answers OpenAI's 401 otherwise.
// GET {url}/credits answers OpenRouter's `{data: {total_credits, total_usage}}` when `credits` is set (404 otherwise).
// `port` starts the fake on a chosen port: a host killed (close()) and started again where it was.
// `echoAuthorization` makes every JSON error answer's message end with the Authorization header it received
// and the bare token, as a debugging proxy or a careless host does.
// `outage` puts the whole host in trouble for any POST (a status, or 'hang' until the client leaves), for
// routing tests with several fakes; `outageError` is then the body's `error` object (OpenRouter's shape
// with `code` and `metadata`, or OpenAI's), instead of the default OpenAI error of that status. Requests are recorded in `requests`; a stream or wait the client walked away from sets the record's
// `abortedAt` (performance.now()) and appends the model to `aborted`.
import { startFakeServer } from './fake-server';
import { AUDIO_SECONDS, recordedForm, TRANSCRIPT, transcriptionAnswer, type RecordedForm } from './upstream-audio';

import type { RecordedRequest, FakeUpstreamOptions, FakeUpstream } from './upstream-types';
export type { RecordedRequest, FakeUpstreamOptions, FakeUpstream } from './upstream-types';

import {
  type FakeModel,
  PIECES,
  SLOW_STREAM_PIECES,
  ESCALATION_REASON,
  EMBEDDING_DIMENSIONS,
  fakeEmbedding,
  expectedEmbeddingTokens,
  expectedResponseUsage,
  expectedResponseText,
  DEFAULT_MODELS,
  expectedUsage,
  expectedContent,
  toolCallsOf,
  embeddingInputs,
  pieceCount,
  completionCap,
  type EmbeddingsBody,
  type ResponsesBody,
  type ChatBody,
} from './upstream-answers';
export type { FakeModel } from './upstream-answers';
import { endlessLine, fakeHeaders as headers, hugeJson, randomHex } from './upstream-oversized';
export {
  PIECES,
  FAKE_REPLY,
  SLOW_STREAM_PIECES,
  TOOL_CALL,
  SECOND_TOOL_CALL,
  ESCALATION_REASON,
  EMBEDDING_DIMENSIONS,
  fakeEmbedding,
  expectedEmbeddingTokens,
  expectedResponseUsage,
  expectedResponseText,
  DEFAULT_MODELS,
  expectedUsage,
  expectedContent,
} from './upstream-answers';

const encoder = new TextEncoder();

const json = (status: number, body: unknown, extra: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: headers('application/json', extra) });

const openAiError = (status: number, message: string, type: string, code: string | null = null, param: string | null = null, extra: Record<string, string> = {}) =>
  json(status, { error: { message, type, param, code } }, extra);

const modelObject = (m: FakeModel) => ({
  id: m.id,
  object: 'model',
  created: m.created,
  owned_by: m.owned_by,
  ...(m.pricing ? { pricing: m.pricing } : {}),
});

const BAD_GATEWAY_HTML = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n';

/** The answer of a fake/error-<status> model (chat and /responses); null for any other model. */
function modelError(model: string): Response | null {
  switch (model) {
    case 'fake/error-400':
      return openAiError(400, "Invalid value for 'temperature': must be between 0 and 2.", 'invalid_request_error', 'invalid_value', 'temperature');
    case 'fake/error-429':
      return openAiError(
        429,
        'Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.',
        'requests',
        'rate_limit_exceeded',
        null,
        { 'retry-after': '1' },
      );
    case 'fake/error-500':
      return openAiError(500, 'The server had an error while processing your request. Sorry about that!', 'server_error');
    case 'fake/error-502':
      return new Response(BAD_GATEWAY_HTML, { status: 502, headers: { 'content-type': 'text/html' } });
    case 'fake/error-503':
      return openAiError(503, 'The engine is currently overloaded, please try again later.', 'server_error');
    default:
      return null;
  }
}

const modelNotFound = (model: string) =>
  openAiError(404, `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');

/**
 * Cuts the connection without a byte of answer. Bun sends nothing until a body yields its first chunk,
 * so a body that fails at once makes the client see a reset (ECONNRESET), not a status. Erroring
 * without a reason keeps Bun from printing the error.
 */
const cutConnection = () =>
  new Response(
    new ReadableStream({
      start(controller) {
        controller.error();
      },
    }),
  );

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const defaults = {
    slowMs: options.slowMs ?? 10_000,
    pieceDelayMs: options.pieceDelayMs ?? 5,
    slowStreamDelayMs: options.slowStreamDelayMs ?? 200,
    transcript: TRANSCRIPT,
    audioSeconds: AUDIO_SECONDS,
  };
  const timers = new Set<ReturnType<typeof setTimeout>>();

  /** Resolves true after `ms`, or false as soon as the client goes away (or the fake closes). */
  const wait = (ms: number, signal: AbortSignal) =>
    new Promise<boolean>((resolve) => {
      if (signal.aborted) return resolve(false);
      const onAbort = () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        timers.delete(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      timers.add(timer);
      signal.addEventListener('abort', onAbort, { once: true });
    });

  let releaseHeldNow: () => void = () => {};
  let heldGate = new Promise<void>((resolve) => (releaseHeldNow = resolve));

  /** fake/held-stream: opens at once, then waits for releaseHeld() (or the client leaving). */
  function heldStream(body: ChatBody, model: string, request: Request): Response {
    const withUsage = body.stream_options?.include_usage === true;
    const base = { id: `chatcmpl-${randomHex(12)}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
    const event = (choices: unknown[], usage?: unknown) =>
      encoder.encode(`data: ${JSON.stringify({ ...base, choices, ...(usage !== undefined ? { usage } : {}) })}\n\n`);
    const gate = heldGate;
    return new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          fake.heldOpen += 1;
          fake.peakHeldOpen = Math.max(fake.peakHeldOpen, fake.heldOpen);
          try {
            controller.enqueue(event([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }], withUsage ? null : undefined));
            const gone = new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve(), { once: true }));
            await Promise.race([gate, gone]);
            if (request.signal.aborted) return;
            controller.enqueue(event([{ index: 0, delta: { content: 'held' }, finish_reason: null }], withUsage ? null : undefined));
            controller.enqueue(event([{ index: 0, delta: {}, finish_reason: 'stop' }], withUsage ? null : undefined));
            if (withUsage) controller.enqueue(event([], { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 }));
            controller.enqueue(encoder.encode('data: [DONE]\n\n'));
            controller.close();
          } catch {
            // The client went away.
          } finally {
            fake.heldOpen -= 1;
          }
        },
      }),
      { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' } },
    );
  }

  const fake: FakeUpstream = {
    url: '',
    apiKey: options.apiKey ?? null,
    requests: [],
    aborted: [],
    streams: [],
    models: [...DEFAULT_MODELS],
    modelsDown: false,
    responsesMissing: false,
    echoAuthorization: false,
    outage: null,
    outageError: null,
    credits: null,
    storedResponses: new Map(),
    reportedUsage: new Map(),
    ...defaults,
    heldOpen: 0,
    peakHeldOpen: 0,
    releaseHeld() {
      const release = releaseHeldNow;
      heldGate = new Promise<void>((resolve) => (releaseHeldNow = resolve));
      release();
    },
    reset() {
      fake.reportedUsage.clear();
      fake.requests.length = 0;
      fake.aborted.length = 0;
      fake.streams.length = 0;
      fake.models = [...DEFAULT_MODELS];
      fake.modelsDown = false;
      fake.responsesMissing = false;
      fake.echoAuthorization = false;
      fake.outage = null;
      fake.outageError = null;
      fake.credits = null;
      Object.assign(fake, defaults);
    },
    close: async () => {},
  };

  /** fake/stream-error: a piece, then an error event mid-stream. */
  function streamError(request: Request, kind: 'chat' | 'responses'): Response {
    const header = request.headers.get('authorization') ?? '';
    const message = `The server had an error while streaming.${fake.echoAuthorization ? ` (received Authorization: ${header}; token ${header.replace(/^Bearer /, '')})` : ''}`;
    const text =
      kind === 'chat'
        ? `data: {"id":"chatcmpl-err","object":"chat.completion.chunk","created":1,"model":"fake/stream-error","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n` +
          `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`
        : `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hel"}\n\n` +
          `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message, param: null })}\n\n`;
    return new Response(text, { headers: headers('text/event-stream; charset=utf-8') });
  }

  function markAborted(record: RecordedRequest, model: string) {
    if (record.abortedAt !== null) return;
    record.abortedAt = performance.now();
    fake.aborted.push(model);
  }

  function authFailure(request: Request): Response | null {
    if (fake.apiKey === null) return null;
    const header = request.headers.get('authorization');
    if (!header) {
      return openAiError(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        'invalid_request_error',
      );
    }
    if (header !== `Bearer ${fake.apiKey}`) {
      return openAiError(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    }
    return null;
  }

  function completion(body: ChatBody, model: string): Response {
    const usage = expectedUsage(body);
    const offered = (body as { tools?: { function?: { name?: string } }[] }).tools?.[0]?.function?.name;
    const escalation = model === 'fake/escalate' && typeof offered === 'string';
    const calls = escalation ? [{ name: offered, arguments: JSON.stringify({ reason: ESCALATION_REASON }) }] : toolCallsOf(model);
    const toolCall = calls.length > 0;
    const truncated = usage.completion_tokens < pieceCount(model);
    const message = toolCall
      ? {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((call) => ({ id: `call_${randomHex(12)}`, type: 'function', function: { name: call.name, arguments: call.arguments } })),
          refusal: null,
        }
      : { role: 'assistant', content: expectedContent(body), refusal: null };
    return json(200, {
      id: `chatcmpl-${randomHex(12)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: truncated ? 'length' : toolCall ? 'tool_calls' : 'stop' }],
      ...(model.startsWith('fake/no-usage') ? {} : { usage: fake.reportedUsage.get(model) ?? usage }),
      system_fingerprint: 'fp_fake',
    });
  }

  function stream(body: ChatBody, model: string, request: Request, record: RecordedRequest): Response {
    const id = `chatcmpl-${randomHex(12)}`;
    const created = Math.floor(Date.now() / 1000);
    const withUsage = body.stream_options?.include_usage === true && !model.startsWith('fake/no-usage');
    const usage = expectedUsage(body);
    const calls = toolCallsOf(model);
    const toolCall = calls.length > 0;
    const delay = model === 'fake/slow-stream' ? fake.slowStreamDelayMs : fake.pieceDelayMs;
    // Tool calls stream as OpenAI's do: each call opens with its id and name, then its arguments in pieces,
    // one call after another (index 0, then 1…).
    const opening = (index: number) => ({ index, id: `call_${randomHex(12)}`, type: 'function', function: { name: calls[index]!.name, arguments: '' } });
    const toolDeltas = calls.flatMap((call, index) => [
      ...(index > 0 ? [{ tool_calls: [opening(index)] }] : []),
      ...call.pieces.map((piece) => ({ tool_calls: [{ index, function: { arguments: piece } }] })),
    ]);
    const deltaAt = (i: number) => (toolCall ? toolDeltas[i]! : { content: model === 'fake/slow-stream' ? `p${i} ` : PIECES[i]! });
    const firstDelta = toolCall ? { role: 'assistant', content: null, tool_calls: [opening(0)], refusal: null } : { role: 'assistant', content: '', refusal: null };
    const finish = Math.min(usage.completion_tokens, completionCap(body)) < pieceCount(model) ? 'length' : toolCall ? 'tool_calls' : 'stop';
    const chunk = (delta: unknown, finishReason: string | null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(withUsage ? { usage: null } : {}),
    });

    let finished = false;
    const onClientGone = () => {
      if (!finished) markAborted(record, model);
    };
    request.signal.addEventListener('abort', onClientGone, { once: true });

    let sent = '';
    return new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          const emit = (text: string): boolean => {
            if (request.signal.aborted) return false;
            try {
              controller.enqueue(encoder.encode(text));
              sent += text;
              return true;
            } catch {
              return false; // the client went away between our check and the write
            }
          };
          const send = (data: unknown) => emit(`data: ${JSON.stringify(data)}\n\n`);

          if (!send(chunk(firstDelta, null))) return;
          // A reported usage (fake/usage-…) is only a figure: the text is the usual pieces.
          const pieces = Math.min(usage.completion_tokens, pieceCount(model));
          for (let i = 0; i < pieces; i++) {
            if (!(await wait(delay, request.signal))) return;
            if (!send(chunk(deltaAt(i), null))) return;
            if (model === 'fake/drop' && i === 1) {
              finished = true;
              // Bun drops chunks still queued when a stream errors: let these reach the socket first.
              await wait(20, request.signal);
              try {
                controller.error();
              } catch {
                // The client left first; the connection is gone either way.
              }
              return;
            }
          }
          if (!send(chunk({}, finish))) return;
          const usageChunk = {
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            system_fingerprint: 'fp_fake',
            choices: [],
            usage: fake.reportedUsage.get(model) ?? usage,
          };
          if (withUsage && !send(usageChunk)) return;
          if (!emit('data: [DONE]\n\n')) return;
          finished = true;
          fake.streams.push(sent);
          controller.close();
        },
        cancel() {
          onClientGone();
        },
      }),
      { headers: headers('text/event-stream; charset=utf-8', { 'cache-control': 'no-cache' }) },
    );
  }

  async function chatCompletions(request: Request, record: RecordedRequest): Promise<Response> {
    if (typeof record.body !== 'object' || record.body === null || Array.isArray(record.body)) {
      return openAiError(
        400,
        `We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)`,
        'invalid_request_error',
      );
    }
    const body = record.body as ChatBody;
    if (typeof body.model !== 'string' || !body.model) {
      return openAiError(400, 'you must provide a model parameter', 'invalid_request_error', null, null);
    }
    if (!Array.isArray(body.messages)) {
      return openAiError(400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages');
    }
    const model = body.model;
    const streaming = body.stream === true;

    if (model === 'fake/unknown-model' || model.startsWith('fake/not-found')) return modelNotFound(model);
    const huge = streaming ? null : hugeJson(model);
    if (huge) return huge;
    const endless = streaming ? endlessLine(model, 'chat') : null;
    if (endless) return endless;
    if (streaming && model === 'fake/stream-error') return streamError(request, 'chat');
    const failure = modelError(model);
    if (failure) return failure;
    switch (model) {
      case 'fake/reset':
        return cutConnection();
      case 'fake/drop':
        if (!streaming) return cutConnection();
        break;
      case 'fake/slow':
        if (!(await wait(fake.slowMs, request.signal))) {
          markAborted(record, model);
          return new Response(null, { status: 499 }); // nobody is listening any more
        }
        break;
    }
    if (streaming && model === 'fake/held-stream') return heldStream(body as ChatBody, model, request);
    if (streaming && model !== 'fake/json-for-stream') return stream(body, model, request, record);
    return completion(body, model);
  }

  // ---- /embeddings and /responses ----

  function embeddings(record: RecordedRequest): Response {
    const body = record.body as EmbeddingsBody | null;
    if (typeof body !== 'object' || body === null || typeof body.model !== 'string') {
      return openAiError(400, 'you must provide a model parameter', 'invalid_request_error');
    }
    const model = body.model;
    if (model === 'fake/unknown-model' || model.startsWith('fake/not-found')) return modelNotFound(model);
    if (model === 'fake/error-500') return openAiError(500, 'The server had an error while processing your request. Sorry about that!', 'server_error');
    const huge = hugeJson(model);
    if (huge) return huge;
    const inputs = embeddingInputs(body.input);
    if (inputs.length === 0) {
      return openAiError(400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'invalid_request_error');
    }
    const dimensions = typeof body.dimensions === 'number' ? body.dimensions : EMBEDDING_DIMENSIONS;
    const data = inputs.map((input, index) => {
      const vector = fakeEmbedding(input, dimensions);
      return {
        object: 'embedding',
        index,
        embedding: body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
      };
    });
    const prompt = expectedEmbeddingTokens(body);
    return json(200, {
      object: 'list',
      data,
      model,
      ...(model.startsWith('fake/no-usage') ? {} : { usage: { prompt_tokens: prompt, total_tokens: prompt } }),
    });
  }

  /** The function_call output items of a tool-calling model (status completed, arguments whole). */
  function functionCallItems(id: string, model: unknown) {
    return toolCallsOf(model).map((call, index) => ({
      id: `fc_${id.slice(5)}_${index}`,
      type: 'function_call',
      status: 'completed',
      call_id: `call_${id.slice(5, 17)}_${index}`,
      name: call.name,
      arguments: call.arguments,
    }));
  }

  function responseObject(id: string, body: ResponsesBody, status: string, text: string | null, usage: unknown, items?: unknown[]) {
    const messageId = `msg_${id.slice(5)}`;
    return {
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      model: body.model,
      output:
        items ??
        (text === null
          ? []
          : [
              {
                id: messageId,
                type: 'message',
                status: 'completed',
                role: 'assistant',
                content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
              },
            ]),
      parallel_tool_calls: true,
      previous_response_id: body.previous_response_id ?? null,
      reasoning: { effort: null, summary: null },
      store: true,
      temperature: 1,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: 1,
      truncation: 'disabled',
      usage,
      user: null,
      metadata: {},
    };
  }

  function responses(request: Request, record: RecordedRequest): Response {
    const body = record.body as ResponsesBody | null;
    if (typeof body !== 'object' || body === null || typeof body.model !== 'string') {
      return openAiError(400, "Missing required parameter: 'model'.", 'invalid_request_error', 'missing_required_parameter', 'model');
    }
    const model = body.model;
    if (model === 'fake/unknown-model' || model.startsWith('fake/not-found')) return modelNotFound(model);
    const failure = modelError(model);
    if (failure) return failure;
    const special = body.stream === true ? endlessLine(model, 'responses') : hugeJson(model);
    if (special) return special;
    if (body.stream === true && model === 'fake/stream-error') return streamError(request, 'responses');
    const id = `resp_${randomHex(24)}`;
    const usage = model.startsWith('fake/no-usage') ? null : (fake.reportedUsage.get(model) ?? expectedResponseUsage(body));
    const calls = functionCallItems(id, model);
    if (body.stream !== true) {
      const done = responseObject(id, body, 'completed', expectedResponseText(body), usage, calls.length > 0 ? calls : undefined);
      fake.storedResponses.set(id, done);
      return json(200, done);
    }
    const slow = model === 'fake/slow-stream';
    const pieces = slow
      ? Array.from({ length: SLOW_STREAM_PIECES }, (_, i) => `p${i} `)
      : PIECES.slice(0, Math.min(PIECES.length, expectedResponseUsage(body).output_tokens));
    const delay = slow ? fake.slowStreamDelayMs : fake.pieceDelayMs;
    const itemId = `msg_${id.slice(5)}`;
    let sequence = 0;
    let finished = false;
    const onClientGone = () => {
      if (!finished) markAborted(record, model);
    };
    request.signal.addEventListener('abort', onClientGone, { once: true });
    let sent = '';
    return new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          const send = (type: string, fields: Record<string, unknown>): boolean => {
            if (request.signal.aborted) return false;
            const text = `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence++ })}\n\n`;
            try {
              controller.enqueue(encoder.encode(text));
              sent += text;
              return true;
            } catch {
              return false;
            }
          };
          const inProgress = responseObject(id, body, 'in_progress', null, null);
          if (!send('response.created', { response: inProgress })) return;
          if (!send('response.in_progress', { response: inProgress })) return;
          if (calls.length > 0) {
            // Function calls, one after another: the item, its arguments in pieces, their end, the item done.
            for (const [index, call] of calls.entries()) {
              if (!send('response.output_item.added', { output_index: index, item: { ...call, status: 'in_progress', arguments: '' } })) return;
              for (const delta of toolCallsOf(model)[index]!.pieces) {
                if (!(await wait(delay, request.signal))) return;
                if (!send('response.function_call_arguments.delta', { item_id: call.id, output_index: index, delta })) return;
              }
              if (!send('response.function_call_arguments.done', { item_id: call.id, output_index: index, arguments: call.arguments })) return;
              if (!send('response.output_item.done', { output_index: index, item: call })) return;
            }
            const done = responseObject(id, body, 'completed', null, usage, calls);
            fake.storedResponses.set(id, done);
            if (!send('response.completed', { response: done })) return;
            finished = true;
            fake.streams.push(sent);
            controller.close();
            return;
          }
          const item = { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
          if (!send('response.output_item.added', { output_index: 0, item })) return;
          const emptyPart = { type: 'output_text', text: '', annotations: [], logprobs: [] };
          if (!send('response.content_part.added', { item_id: itemId, output_index: 0, content_index: 0, part: emptyPart })) return;
          let text = '';
          for (const delta of pieces) {
            if (!(await wait(delay, request.signal))) return;
            text += delta;
            if (!send('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta, logprobs: [] })) return;
            if (model === 'fake/drop' && text === 'Hello') {
              finished = true;
              // Bun drops chunks still queued when a stream errors: let these reach the socket first.
              await wait(20, request.signal);
              try {
                controller.error();
              } catch {
                // The client left first; the connection is gone either way.
              }
              return;
            }
          }
          const part = { type: 'output_text', text, annotations: [], logprobs: [] };
          if (!send('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text, logprobs: [] })) return;
          if (!send('response.content_part.done', { item_id: itemId, output_index: 0, content_index: 0, part })) return;
          const doneItem = { ...item, status: 'completed', content: [part] };
          if (!send('response.output_item.done', { output_index: 0, item: doneItem })) return;
          const done = responseObject(id, body, 'completed', text, usage);
          fake.storedResponses.set(id, done);
          if (!send('response.completed', { response: done })) return;
          finished = true;
          fake.streams.push(sent);
          controller.close();
        },
        cancel() {
          onClientGone();
        },
      }),
      { headers: headers('text/event-stream; charset=utf-8', { 'cache-control': 'no-cache' }) },
    );
  }

  function storedResponse(method: string, id: string): Response {
    const found = fake.storedResponses.get(id);
    if (!found) {
      return openAiError(404, `Response with id '${id}' not found.`, 'invalid_request_error', null, null);
    }
    if (method === 'DELETE') {
      fake.storedResponses.delete(id);
      return json(200, { id, object: 'response.deleted', deleted: true });
    }
    return json(200, found);
  }

  const server = startFakeServer(
    async (request) => {
      const answer = await route(request);
      if (!fake.echoAuthorization || answer.status < 400 || !(answer.headers.get('content-type') ?? '').includes('json')) return answer;
      const body = (await answer.json()) as { error: { message: string } };
      const header = request.headers.get('authorization') ?? '';
      body.error.message += ` (received Authorization: ${header}; token ${header.replace(/^Bearer /, '')})`;
      return new Response(JSON.stringify(body), { status: answer.status, headers: answer.headers });
    },
    // Quiet failures: no development error pages, no logs for the connections cut on purpose; fake/slow
    // holds a request longer than Bun's 10 s default idle limit.
    { development: false, idleTimeout: 0, ...(options.port ? { port: options.port } : {}) },
  );

  async function route(request: Request): Promise<Response> {
    {
      const url = new URL(request.url);
      // A multipart form (a transcription) is recorded as its fields and file (upstream-audio.ts).
      const form = (request.headers.get('content-type') ?? '').startsWith('multipart/form-data') ? await recordedForm(request) : null;
      const raw = request.method === 'GET' || request.method === 'HEAD' || form ? '' : await request.text();
      let body: unknown = form;
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          body = raw;
        }
      }
      const record: RecordedRequest = {
        path: url.pathname,
        method: request.method,
        headers: Object.fromEntries(request.headers),
        body,
        receivedAt: performance.now(),
        abortedAt: null,
      };
      fake.requests.push(record);

      const denied = authFailure(request);
      if (denied) return denied;

      if (fake.outage !== null && request.method === 'POST') {
        if (fake.outage === 'hang') {
          await wait(3_600_000, request.signal);
          markAborted(record, 'outage');
          return new Response(null, { status: 499 });
        }
        if (fake.outageError) return json(fake.outage, { error: fake.outageError });
        return openAiError(fake.outage, `outage: status ${fake.outage}`, fake.outage >= 500 ? 'server_error' : 'requests');
      }

      if (request.method === 'POST' && url.pathname === '/v1/chat/completions') return chatCompletions(request, record);
      if (request.method === 'POST' && url.pathname === '/v1/embeddings') return embeddings(record);
      if (request.method === 'POST' && url.pathname === '/v1/audio/transcriptions') {
        return transcriptionAnswer((body as RecordedForm | null) ?? { fields: {}, file: null }, { transcript: fake.transcript, seconds: fake.audioSeconds });
      }
      const isResponses = url.pathname === '/v1/responses' || url.pathname.startsWith('/v1/responses/');
      if (isResponses && !fake.responsesMissing) {
        if (request.method === 'POST' && url.pathname === '/v1/responses') return responses(request, record);
        const id = decodeURIComponent(url.pathname.slice('/v1/responses/'.length));
        if ((request.method === 'GET' || request.method === 'DELETE') && id && !id.includes('/')) return storedResponse(request.method, id);
      }
      if (request.method === 'GET' && url.pathname === '/v1/models') {
        if (fake.modelsDown) return openAiError(503, 'The server is temporarily unavailable.', 'server_error');
        return json(200, { object: 'list', data: fake.models.map(modelObject) });
      }
      if (request.method === 'GET' && url.pathname.startsWith('/v1/models/')) {
        if (fake.modelsDown) return openAiError(503, 'The server is temporarily unavailable.', 'server_error');
        const id = decodeURIComponent(url.pathname.slice('/v1/models/'.length));
        const found = fake.models.find((m) => m.id === id);
        if (!found) return modelNotFound(id);
        return json(200, modelObject(found));
      }
      if (request.method === 'GET' && url.pathname === '/v1/credits' && fake.credits) return json(200, { data: fake.credits });
      return openAiError(404, `Invalid URL (${request.method} ${url.pathname})`, 'invalid_request_error');
    }
  }

  fake.url = `${server.origin}/v1`;
  fake.close = async () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    await server.close();
  };
  return fake;
}
