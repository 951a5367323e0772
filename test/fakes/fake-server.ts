// What every fake in test/fakes does besides speaking its service's wire format: an HTTP server on
// 127.0.0.1 at a free port, answers held open on purpose (a hang past the client's timeout, a slow
// answer) and let go when the test resets or closes the fake, failures queued for the next calls, and
// the JSON-or-text answers the fakes build.
import type { Server } from 'bun';

export interface FakeServer {
  /** `http://127.0.0.1:<port>`: the fake adds its API's base path. */
  readonly origin: string;
  readonly port: number;
  /**
   * Holds an answer back; resolves after `ms` (when given), when the client gives up (with its request's
   * `signal`), or at releaseHeld() (a reset) and close(), whichever comes first.
   */
  hold(options?: { ms?: number; signal?: AbortSignal }): Promise<void>;
  /** Answers held back right now. */
  readonly heldCount: number;
  /** Lets every held answer go. */
  releaseHeld(): void;
  /** Lets held answers go and stops the server, cutting the connections still open. */
  close(): Promise<void>;
}

export interface FakeServerOptions {
  /** Bun's development error pages (off for fakes that cut connections on purpose). */
  development?: boolean;
  /** Seconds a connection may idle (0: no limit, for answers held longer than Bun's 10 s default). */
  idleTimeout?: number;
  /** A port of the caller's choice (a host restarted where it was); 0 or unset: a free one. */
  port?: number;
}

export function startFakeServer(fetch: (request: Request, server: Server<undefined>) => Response | Promise<Response>, options: FakeServerOptions = {}): FakeServer {
  const held = new Set<() => void>();
  const server = Bun.serve({ hostname: '127.0.0.1', ...options, port: options.port ?? 0, fetch });
  const releaseHeld = () => {
    for (const release of [...held]) release();
  };
  return {
    origin: `http://127.0.0.1:${server.port}`,
    port: server.port!,
    hold({ ms, signal } = {}) {
      return new Promise<void>((resolve) => {
        const release = () => {
          clearTimeout(timer);
          held.delete(release);
          resolve();
        };
        const timer = ms === undefined ? undefined : setTimeout(release, ms);
        held.add(release);
        signal?.addEventListener('abort', release, { once: true });
      });
    },
    get heldCount() {
      return held.size;
    },
    releaseHeld,
    async close() {
      releaseHeld();
      await server.stop(true);
    },
  };
}

/** Failures a test queued for the fake's next calls, each used the number of times it was queued for. */
export class FailureQueue<T> {
  private readonly queue: { failure: T; remaining: number }[] = [];

  add(failure: T, times = 1): void {
    this.queue.push({ failure, remaining: times });
  }

  /** The first queued failure the call matches, counted as used once; null when none does. */
  take(matches: (failure: T) => boolean): T | null {
    const index = this.queue.findIndex((entry) => matches(entry.failure));
    if (index < 0) return null;
    const entry = this.queue[index]!;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.queue.splice(index, 1);
    return entry.failure;
  }

  clear(): void {
    this.queue.length = 0;
  }
}

/** A fake's answer before it is sent: text as it is, anything else as JSON. */
export interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function answerResponse(answer: FakeAnswer): Response {
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.body === null || answer.body === undefined) return new Response(null, { status: answer.status, headers });
  if (typeof answer.body === 'string') return new Response(answer.body, { status: answer.status, headers });
  headers['content-type'] = 'application/json';
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers });
}

/** The query string's parameters, as the start of what a call sent. */
export function queryParams(url: URL): Record<string, string> {
  const params: Record<string, string> = {};
  url.searchParams.forEach((value, key) => {
    params[key] = value;
  });
  return params;
}

/**
 * The text fields of a form body (urlencoded or multipart; files are irrelevant to the fakes) into
 * `params`; a body of any other type is read and dropped, as a server that ignores it would.
 */
export async function readFormFields(req: Request, type: string, params: Record<string, unknown>): Promise<void> {
  if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')) {
    const form = await req.formData();
    form.forEach((value, key) => {
      if (typeof value === 'string') params[key] = value;
    });
  } else {
    await req.arrayBuffer();
  }
}

/** A request body's text as JSON, or as the text itself when it is no JSON; null when empty. */
export function jsonOrText(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
