// The slow-stream client: opens N streaming chat requests at once (each on its own connection, all started
// as fast as the process can), and for each measures the time to the first content token and whether
// the stream completed. Raw sockets (Bun.connect) and a small HTTP/1.1 reader, so that neither fetch's
// request limit nor its worker thread sits between the measurement and the wire.
//
//   bun bench/slow-streams.ts --url http://127.0.0.1:PORT/v1/chat/completions --count 512 \
//     [--key KEY] [--model acme/slow] [--timeout-ms 120000]
//
// Prints one JSON line on stdout (SlowStreamSummary). Per stream:
//   connect   from asking for the connection to its being open (the server's accept queue included)
//   TTFT      from writing the request to receiving the first SSE data event whose delta carries content
//   total     from writing the request to the stream's end
//   ok        status 200, and `data: [DONE]` arrived before the connection ended
//   broken    anything else: connect failure, socket error, non-200, ended without [DONE], or still
//             open when the timeout passed
import { parseArgs } from 'node:util';

export interface SlowStreamSummary {
  url: string;
  count: number;
  ok: number;
  broken: number;
  /** Broken streams by why. */
  reasons: { connect: number; socket: number; status: number; noDone: number; timeout: number };
  /** Non-200 statuses seen, by status. */
  statuses: Record<string, number>;
  ttftMs: Percentiles;
  connectMs: Percentiles;
  totalMs: Percentiles;
  /** From the first connection asked for to the last stream's end. */
  wallMs: number;
  /** The first few failures, for the report. */
  samples: string[];
}

export interface Percentiles {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!);
  return { n: sorted.length, p50: rank(0.5), p99: rank(0.99), max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN };
}

const CHUNK_SIZE_LINE = -1;
const CHUNK_CRLF = -2;

interface StreamState {
  askedAt: number;
  openAt: number;
  sentAt: number;
  firstContentAt: number;
  endAt: number;
  status: number;
  done: boolean;
  finished: boolean;
  failure: keyof SlowStreamSummary['reasons'] | null;
  detail: string;
  // Reading the response: bytes as latin1 (one char per byte), so chunk sizes count exactly.
  head: string;
  headDone: boolean;
  chunked: boolean;
  /** Chunked: bytes left of the current chunk, or CHUNK_SIZE_LINE / CHUNK_CRLF for what is expected next. */
  chunkLeft: number;
  /** Not chunked: bytes of the body still to come by Content-Length, -1 without one (until the close). */
  lengthLeft: number;
  socket: import('bun').Socket<undefined> | null;
  raw: string;
  sse: string;
}

/** Runs the streams; resolves when every one has ended or the timeout passed. */
export async function runSlowStreams(options: { url: string; count: number; key: string; model: string; timeoutMs: number }): Promise<SlowStreamSummary> {
  const target = new URL(options.url);
  const body = JSON.stringify({
    model: options.model,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Write fifty words.' },
    ],
    max_tokens: 64,
    stream: true,
  });
  const request =
    `POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\n` +
    `Accept: text/event-stream\r\nAuthorization: Bearer ${options.key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Connection: close\r\n\r\n${body}`;

  const states: StreamState[] = [];
  let remaining = options.count;
  let allEnded!: () => void;
  const ended = new Promise<void>((resolve) => (allEnded = resolve));
  const started = performance.now();

  const finish = (s: StreamState, failure: StreamState['failure'], detail = '') => {
    if (s.finished) return;
    s.finished = true;
    s.endAt = performance.now();
    if (failure === null && !(s.status === 200 && s.done)) {
      failure = s.status !== 200 && s.status !== 0 ? 'status' : s.headDone ? 'noDone' : 'socket';
    }
    s.failure = failure;
    s.detail = detail;
    if (--remaining === 0) allEnded();
  };

  /** SSE events of the decoded body: the first one carrying content sets TTFT; `[DONE]` marks the stream complete. */
  const onBody = (s: StreamState, text: string) => {
    s.sse += text;
    let cut: number;
    while ((cut = s.sse.indexOf('\n\n')) >= 0) {
      const event = s.sse.slice(0, cut);
      s.sse = s.sse.slice(cut + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') {
          s.done = true;
        } else if (s.firstContentAt === 0 && data.includes('"content"')) {
          try {
            const parsed = JSON.parse(data) as { choices?: { delta?: { content?: string | null } }[] };
            if (parsed.choices?.some((c) => typeof c.delta?.content === 'string' && c.delta.content.length > 0)) {
              s.firstContentAt = performance.now();
            }
          } catch {
            // Not JSON: not content.
          }
        }
      }
    }
  };

  /** The body's framing taken off incrementally: chunked (Bun's streams) or a Content-Length (error answers). */
  const onRaw = (s: StreamState, text: string) => {
    if (!s.chunked) {
      onBody(s, text);
      if (s.lengthLeft >= 0) {
        s.lengthLeft -= text.length;
        if (s.lengthLeft <= 0) complete(s);
      }
      return;
    }
    s.raw += text;
    for (;;) {
      if (s.chunkLeft === CHUNK_SIZE_LINE) {
        const eol = s.raw.indexOf('\r\n');
        if (eol < 0) return;
        const size = parseInt(s.raw.slice(0, eol), 16);
        s.raw = s.raw.slice(eol + 2);
        if (!(size >= 0)) return complete(s);
        // The last chunk: the answer is whole.
        if (size === 0) return complete(s);
        s.chunkLeft = size;
      } else if (s.chunkLeft === CHUNK_CRLF) {
        if (s.raw.length < 2) return;
        s.raw = s.raw.slice(2);
        s.chunkLeft = CHUNK_SIZE_LINE;
      } else {
        if (s.raw.length === 0) return;
        const take = s.raw.slice(0, s.chunkLeft);
        s.raw = s.raw.slice(take.length);
        s.chunkLeft -= take.length;
        onBody(s, take);
        if (s.chunkLeft === 0) s.chunkLeft = CHUNK_CRLF;
      }
    }
  };

  /** The whole answer arrived: judge it and close the connection (not waiting for the server to). */
  const complete = (s: StreamState) => {
    finish(s, null);
    s.socket?.end();
  };

  const onData = (s: StreamState, bytes: Uint8Array) => {
    if (s.finished) return;
    let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    if (!s.headDone) {
      s.head += text;
      const end = s.head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = s.head.slice(0, end);
      text = s.head.slice(end + 4);
      s.head = '';
      s.headDone = true;
      s.status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      s.chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      s.lengthLeft = length ? Number(length[1]) : -1;
      if (s.lengthLeft === 0) return complete(s);
    }
    if (text) onRaw(s, text);
  };

  for (let i = 0; i < options.count; i++) {
    const s: StreamState = {
      askedAt: performance.now(),
      openAt: 0,
      sentAt: 0,
      firstContentAt: 0,
      endAt: 0,
      status: 0,
      done: false,
      finished: false,
      failure: null,
      detail: '',
      head: '',
      headDone: false,
      chunked: false,
      chunkLeft: CHUNK_SIZE_LINE,
      lengthLeft: -1,
      socket: null,
      raw: '',
      sse: '',
    };
    states.push(s);
    Bun.connect({
      hostname: target.hostname,
      port: Number(target.port),
      socket: {
        open(socket) {
          s.socket = socket;
          s.openAt = performance.now();
          s.sentAt = s.openAt;
          socket.write(request);
        },
        data(_socket, bytes) {
          onData(s, bytes);
        },
        close() {
          finish(s, null);
        },
        end(socket) {
          socket.end();
        },
        error(_socket, error) {
          finish(s, 'socket', error.message);
        },
        connectError(_socket, error) {
          finish(s, 'connect', error.message);
        },
      },
    }).catch((error: unknown) => finish(s, 'connect', error instanceof Error ? error.message : String(error)));
  }

  if (options.count === 0) allEnded();
  const timer = setTimeout(() => {
    for (const s of states) {
      if (s.finished) continue;
      finish(s, 'timeout', `still open after ${options.timeoutMs} ms`);
      s.socket?.terminate();
    }
  }, options.timeoutMs);
  await ended;
  clearTimeout(timer);
  const wallMs = Math.max(0, ...states.map((s) => s.endAt)) - started;

  const reasons = { connect: 0, socket: 0, status: 0, noDone: 0, timeout: 0 };
  const statuses: Record<string, number> = {};
  const samples: string[] = [];
  for (const s of states) {
    if (s.status !== 200 && s.status !== 0) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    if (s.failure) {
      reasons[s.failure]++;
      if (samples.length < 5) samples.push(`${s.failure}${s.status ? ` (status ${s.status})` : ''}${s.detail ? `: ${s.detail}` : ''}`);
    }
  }
  const ok = states.filter((s) => s.failure === null);
  return {
    url: options.url,
    count: options.count,
    ok: ok.length,
    broken: options.count - ok.length,
    reasons,
    statuses,
    ttftMs: percentiles(states.filter((s) => s.firstContentAt > 0).map((s) => s.firstContentAt - s.sentAt)),
    connectMs: percentiles(states.filter((s) => s.openAt > 0).map((s) => s.openAt - s.askedAt)),
    totalMs: percentiles(ok.map((s) => s.endAt - s.sentAt)),
    wallMs,
    samples,
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      count: { type: 'string', default: '512' },
      key: { type: 'string', default: process.env.BENCH_KEY ?? 'none' },
      model: { type: 'string', default: 'acme/slow' },
      'timeout-ms': { type: 'string', default: '120000' },
    },
  });
  if (!values.url) {
    process.stderr.write('slow-streams: --url is required\n');
    process.exit(2);
  }
  const summary = await runSlowStreams({
    url: values.url,
    count: Number(values.count),
    key: values.key!,
    model: values.model!,
    timeoutMs: Number(values['timeout-ms']),
  });
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  process.exit(0);
}
