// The benchmark's model host: answers POST /v1/chat/completions at once with a fixed small answer, so
// what the benchmark measures is the proxy in front of it, not the model. Run as its own process
// (`bun bench/fake-upstream.ts`); prints `READY <port>` when it listens.
//
//   stream absent/false   a fixed chat.completion JSON with usage
//   stream: true          role chunk, three content chunks, finish chunk, a usage-only chunk when
//                         stream_options.include_usage is true (with "usage":null on every other chunk,
//                         as OpenAI does), then [DONE]
//   GET /v1/models        a fixed model list: the bench's model and two that rows of BENCH_PRICE_ROWS match
//                         (Conduit shows its prices on it, which tells the bench the price table was loaded)
//   GET /stats            requests served, split by who sent them (the floor marks its requests)
const encoder = new TextEncoder();
const MODEL = 'acme/chat';
const ID = 'chatcmpl-bench0000000000000000000000';
const CREATED = 1_700_000_000;
const USAGE = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
const PIECES = ['Hello', ' from', ' the bench.'];

const completionJson = JSON.stringify({
  id: ID,
  object: 'chat.completion',
  created: CREATED,
  model: MODEL,
  system_fingerprint: 'fp_bench',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: PIECES.join(''), refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: USAGE,
});

function streamEvents(withUsage: boolean): Uint8Array[] {
  const chunk = (delta: unknown, finish: string | null) =>
    JSON.stringify({
      id: ID,
      object: 'chat.completion.chunk',
      created: CREATED,
      model: MODEL,
      system_fingerprint: 'fp_bench',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(withUsage ? { usage: null } : {}),
    });
  const events = [
    chunk({ role: 'assistant', content: '' }, null),
    ...PIECES.map((p) => chunk({ content: p }, null)),
    chunk({}, 'stop'),
  ];
  if (withUsage) {
    events.push(JSON.stringify({ id: ID, object: 'chat.completion.chunk', created: CREATED, model: MODEL, choices: [], usage: USAGE }));
  }
  events.push('[DONE]');
  return events.map((e) => encoder.encode(`data: ${e}\n\n`));
}

const STREAM_WITH_USAGE = streamEvents(true);
const STREAM_WITHOUT_USAGE = streamEvents(false);
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const JSON_HEADERS = { 'content-type': 'application/json' };

const stats = { floor: 0, other: 0 };

const modelsJson = JSON.stringify({
  object: 'list',
  data: [MODEL, 'vendor1/model1', 'vendor2/probe'].map((id) => ({ id, object: 'model', created: CREATED, owned_by: id.split('/')[0] })),
});

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  idleTimeout: 60,
  async fetch(request) {
    const url = new URL(request.url);
    if (request.method === 'GET' && url.pathname === '/stats') return Response.json(stats);
    if (request.method === 'GET' && url.pathname === '/v1/models') return new Response(modelsJson, { headers: JSON_HEADERS });
    if (request.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
      return new Response(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }), {
        status: 404,
        headers: JSON_HEADERS,
      });
    }
    if (request.headers.get('x-bench-origin') === 'floor') stats.floor++;
    else stats.other++;
    const body = (await request.json()) as { stream?: boolean; stream_options?: { include_usage?: boolean } | null };
    if (body.stream !== true) return new Response(completionJson, { headers: JSON_HEADERS });
    const events = body.stream_options?.include_usage === true ? STREAM_WITH_USAGE : STREAM_WITHOUT_USAGE;
    // Each event is its own write, as a model host sends them; no delay between them.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const event of events) controller.enqueue(event);
        controller.close();
      },
    });
    return new Response(stream, { headers: SSE_HEADERS });
  },
});

process.stdout.write(`READY ${server.port}\n`);

// A module, so its top-level names stay its own.
export {};
