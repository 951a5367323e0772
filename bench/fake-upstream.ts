// The benchmark's model host: answers POST /v1/chat/completions at once with a fixed small answer, so
// what the benchmark measures is the proxy in front of it, not the model. Run as its own process
// (`bun bench/fake-upstream.ts`); prints `READY <port>` when it listens.
//
//   stream absent/false   a fixed chat.completion JSON with usage
//   stream: true          role chunk, three content chunks, finish chunk, a usage-only chunk when
//                         stream_options.include_usage is true (with "usage":null on every other chunk,
//                         as OpenAI does), then [DONE]
//   model "acme/slow…"    (acme/slow and any id starting with it, echoed back) a slow stream, as a model writes an answer (the slow-stream phases): the role chunk
//                         and the first content chunk SLOW_FIRST_MS (50) after the request, then content chunks
//                         SLOW_GAP_MS (20) apart, SLOW_CHUNKS (50) in all, the finish chunk, the usage chunk when
//                         include_usage, [DONE] (about 1.05 s); the times are kept on an absolute schedule, so an
//                         overloaded fake sends late but does not drift. Plain (no stream): the same wait, then the JSON.
//   GET /v1/models        a fixed model list: the bench's models and two that rows of BENCH_PRICE_ROWS match
//                         (Conduit shows its prices on it, which tells the bench the price table was loaded)
//   GET /stats            requests served, split by who sent them (the floor marks its requests), and the slow
//                         streams: started, open now and the most open at once since the last POST /stats/reset-peak
//   /<name>/v1/…          the same answers under a base path of its own, so one fake serves as several providers
//                         (bench/routing.ts): requests are counted per name too (`byBase`; the plain /v1 is `-`)
//   /fail/v1/…            a provider that is down: 503 with an OpenAI-shaped error at once, counted as `failed`
//                         (not in `other`: a failed attempt leaves no usage row)
const encoder = new TextEncoder();
const MODEL = 'acme/chat';
const ID = 'chatcmpl-bench0000000000000000000000';
const CREATED = 1_700_000_000;
const USAGE = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
const PIECES = ['Hello', ' from', ' the bench.'];
const SLOW_MODEL = 'acme/slow';
const SLOW_FIRST_MS = Number(process.env.SLOW_FIRST_MS ?? 50);
const SLOW_GAP_MS = Number(process.env.SLOW_GAP_MS ?? 20);
const SLOW_CHUNKS = Number(process.env.SLOW_CHUNKS ?? 50);
/** One token per content chunk. */
const SLOW_USAGE = { prompt_tokens: 12, completion_tokens: SLOW_CHUNKS, total_tokens: 12 + SLOW_CHUNKS };

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
  const events = [chunk({ role: 'assistant', content: '' }, null), ...PIECES.map((p) => chunk({ content: p }, null)), chunk({}, 'stop')];
  if (withUsage) {
    events.push(JSON.stringify({ id: ID, object: 'chat.completion.chunk', created: CREATED, model: MODEL, choices: [], usage: USAGE }));
  }
  events.push('[DONE]');
  return events.map((e) => encoder.encode(`data: ${e}\n\n`));
}

/** The slow stream's events as timed writes: [ms after the request, bytes]. */
function slowEvents(withUsage: boolean, model: string): [number, Uint8Array][] {
  const chunk = (delta: unknown, finish: string | null) =>
    JSON.stringify({
      id: ID,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      system_fingerprint: 'fp_bench',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(withUsage ? { usage: null } : {}),
    });
  const out: [number, string][] = [[SLOW_FIRST_MS, chunk({ role: 'assistant', content: '' }, null)]];
  for (let i = 0; i < SLOW_CHUNKS; i++) out.push([SLOW_FIRST_MS + i * SLOW_GAP_MS, chunk({ content: ` w${i + 1}` }, null)]);
  const end = SLOW_FIRST_MS + SLOW_CHUNKS * SLOW_GAP_MS;
  out.push([end, chunk({}, 'stop')]);
  if (withUsage) {
    out.push([end, JSON.stringify({ id: ID, object: 'chat.completion.chunk', created: CREATED, model, choices: [], usage: SLOW_USAGE })]);
  }
  out.push([end, '[DONE]']);
  return out.map(([at, e]) => [at, encoder.encode(`data: ${e}\n\n`)]);
}

const slowCompletionJson = JSON.stringify({
  id: ID,
  object: 'chat.completion',
  created: CREATED,
  model: SLOW_MODEL,
  system_fingerprint: 'fp_bench',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: Array.from({ length: SLOW_CHUNKS }, (_, i) => ` w${i + 1}`).join(''), refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: SLOW_USAGE,
});

/**
 * Timers shared by everything due in the same millisecond: thousands of slow streams started together
 * fire a few hundred timers per step instead of one each.
 */
const due = new Map<number, (() => void)[]>();
function at(when: number, run: () => void): void {
  const slot = Math.ceil(when);
  let list = due.get(slot);
  if (!list) {
    const fresh: (() => void)[] = [];
    list = fresh;
    due.set(slot, fresh);
    setTimeout(
      () => {
        due.delete(slot);
        for (const f of fresh) f();
      },
      Math.max(0, slot - performance.now()),
    );
  }
  list.push(run);
}

/** The slow stream of each model id asked for, with and without the usage chunk (built once). */
const slowStreams = new Map<string, [number, Uint8Array][]>();
function slowEventsOf(model: string, withUsage: boolean): [number, Uint8Array][] {
  const key = `${withUsage} ${model}`;
  let events = slowStreams.get(key);
  if (!events) {
    events = slowEvents(withUsage, model);
    if (slowStreams.size < 64) slowStreams.set(key, events);
  }
  return events;
}

const STREAM_WITH_USAGE = streamEvents(true);
const STREAM_WITHOUT_USAGE = streamEvents(false);
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const JSON_HEADERS = { 'content-type': 'application/json' };

const stats = { floor: 0, other: 0, failed: 0, byBase: {} as Record<string, number> };
const FAILED_JSON = JSON.stringify({ error: { message: 'the bench provider is down', type: 'server_error', code: null } });
/** Slow streams by sender: started, open now, the most open at once since the last reset. */
const slow = {
  floor: { started: 0, open: 0, peak: 0 },
  other: { started: 0, open: 0, peak: 0 },
};

function slowStream(events: [number, Uint8Array][], who: 'floor' | 'other', signal: AbortSignal): ReadableStream<Uint8Array> {
  const count = slow[who];
  const started = performance.now();
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    count.open--;
  };
  count.started++;
  count.open++;
  if (count.open > count.peak) count.peak = count.open;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      signal.addEventListener('abort', close, { once: true });
      let i = 0;
      // Each write is its own event at its own time; events due at the same time go in one turn.
      const step = () => {
        if (!open) return;
        const now = events[i]![0];
        try {
          while (i < events.length && events[i]![0] === now) controller.enqueue(events[i++]![1]);
          if (i === events.length) {
            controller.close();
            close();
            return;
          }
        } catch {
          close();
          return;
        }
        at(started + events[i]![0], step);
      };
      at(started + events[0]![0], step);
    },
    cancel() {
      close();
    },
  });
}

const modelsJson = JSON.stringify({
  object: 'list',
  data: [MODEL, SLOW_MODEL, 'vendor1/model1', 'vendor2/probe'].map((id) => ({ id, object: 'model', created: CREATED, owned_by: id.split('/')[0] })),
});

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  idleTimeout: 60,
  async fetch(request) {
    const url = new URL(request.url);
    // A provider's base path: `/<name>/v1/…` is served as `/v1/…` and counted under its name.
    const base = /^\/([a-z0-9_-]+)(\/v1\/.*)$/.exec(url.pathname);
    const path = base ? base[2]! : url.pathname;
    const baseName = base ? base[1]! : '-';
    if (request.method === 'GET' && url.pathname === '/stats') return Response.json({ ...stats, slow });
    if (request.method === 'POST' && url.pathname === '/stats/reset-peak') {
      slow.floor.peak = slow.floor.open;
      slow.other.peak = slow.other.open;
      return Response.json({ slow });
    }
    if (request.method === 'GET' && path === '/v1/models') return new Response(modelsJson, { headers: JSON_HEADERS });
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      return new Response(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }), {
        status: 404,
        headers: JSON_HEADERS,
      });
    }
    if (baseName === 'fail') {
      stats.failed++;
      return new Response(FAILED_JSON, { status: 503, headers: JSON_HEADERS });
    }
    const who = request.headers.get('x-bench-origin') === 'floor' ? 'floor' : 'other';
    stats[who]++;
    stats.byBase[baseName] = (stats.byBase[baseName] ?? 0) + 1;
    const body = (await request.json()) as { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean } | null };
    if (typeof body.model === 'string' && body.model.startsWith(SLOW_MODEL)) {
      if (body.stream === true) {
        const events = slowEventsOf(body.model.slice(0, 100), body.stream_options?.include_usage === true);
        return new Response(slowStream(events, who, request.signal), { headers: SSE_HEADERS });
      }
      await Bun.sleep(SLOW_FIRST_MS + SLOW_CHUNKS * SLOW_GAP_MS);
      return new Response(slowCompletionJson, { headers: JSON_HEADERS });
    }
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
