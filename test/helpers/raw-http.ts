// HTTP/1.1 over a bare TCP socket, for what fetch cannot do: send a request byte by byte, from a chosen
// loopback address (all of 127.0.0.0/8 is loopback on Linux, so each attacker can have its own), and
// see exactly when the server answers and when it closes.
import { connect } from 'node:net';

export interface RawConnection {
  /** Everything the server sent so far. */
  readonly received: string;
  /** Resolves with the milliseconds from connecting to the server's close (or our own destroy). */
  readonly closed: Promise<number>;
  readonly isClosed: boolean;
  write(text: string): void;
  /** Writes `text` one character at a time, `gapMs` apart; stops early when the connection closes. */
  trickle(text: string, gapMs: number): Promise<void>;
  /** Resolves once `received` holds `text`; rejects when the connection closes first or time runs out. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  destroy(): void;
}

/** Connects to the host and port of `baseUrl`, from `localAddress` when given. */
export function openRaw(baseUrl: string, localAddress?: string): Promise<RawConnection> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    let received = '';
    let isClosed = false;
    let connectedAt = 0;
    const waiters = new Set<() => void>();
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      for (const wake of waiters) wake();
    });
    const closed = new Promise<number>((done) =>
      socket.on('close', () => {
        isClosed = true;
        for (const wake of waiters) wake();
        done(performance.now() - connectedAt);
      }),
    );
    socket.on('error', (error) => {
      if (!connectedAt) reject(error);
    });
    socket.on('connect', () => {
      connectedAt = performance.now();
      resolve({
        get received() {
          return received;
        },
        get isClosed() {
          return isClosed;
        },
        closed,
        write(text) {
          if (!isClosed) socket.write(text, 'latin1');
        },
        async trickle(text, gapMs) {
          for (const char of text) {
            if (isClosed) return;
            socket.write(char, 'latin1');
            await Bun.sleep(gapMs);
          }
        },
        waitFor(text, timeoutMs = 5000) {
          return new Promise<void>((done, fail) => {
            const timer = setTimeout(() => finish(new Error(`no ${JSON.stringify(text)} within ${timeoutMs} ms`)), timeoutMs);
            const finish = (error?: Error) => {
              clearTimeout(timer);
              waiters.delete(check);
              if (error) fail(error);
              else done();
            };
            const check = () => {
              if (received.includes(text)) finish();
              else if (isClosed) finish(new Error(`closed before ${JSON.stringify(text)} arrived; got ${JSON.stringify(received)}`));
            };
            waiters.add(check);
            check();
          });
        },
        destroy() {
          socket.destroy();
        },
      });
    });
  });
}

/** The status code of the first answer in `received`, or null when none has arrived. */
export function statusOf(received: string): number | null {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
  return match ? Number(match[1]) : null;
}

/** A header of the first answer in `received` (case-insensitive name), or null. */
export function headerOf(received: string, name: string): string | null {
  const end = received.indexOf('\r\n\r\n');
  const head = end < 0 ? received : received.slice(0, end);
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name.toLowerCase()) return line.slice(colon + 1).trim();
  }
  return null;
}
