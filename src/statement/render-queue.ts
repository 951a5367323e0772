// The closing documents wait here for their turn. Drawing one is tens of milliseconds of synchronous work on
// the event loop (pdfkit lays out the text and subsets the embedded font), after a few database reads; 60
// requests at once held every other request — /health included — for seconds, behind their drawing and
// behind their queries in the connection pool. So a document request, once authenticated and checked,
// queues in arrival order and at most PDF_RENDERS_AT_ONCE are built (read and drawn) at a time; the drawing
// starts on a fresh turn of the event loop, so what arrived meanwhile is served first. (A Worker would take
// the drawing off the loop altogether, but in Bun each costs ~50–100 MB of resident memory and over a
// second to start, for files a user fetches a few times a month.)
//
// The line is bounded too: past PDF_QUEUE_MAX_WAITING waiting requests a new one is answered 503 with
// Retry-After at once, instead of holding its connection (and its memory) behind a line that only grows.
import { AppError } from '../http/errors';
import { statementMessages } from './texts';

export const PDF_RENDERS_AT_ONCE = 2;
/** The default of PDF_QUEUE_MAX_WAITING: requests that may wait for their turn; the next is refused (503). */
export const PDF_QUEUE_MAX_WAITING = 50;
/** What a refused request is told to wait: the line of PDF_QUEUE_MAX_WAITING is a second or two of drawing. */
export const PDF_QUEUE_RETRY_AFTER_SECONDS = 5;

export interface RenderQueueStats {
  /** Documents being built now (at most the limit). */
  rendering: number;
  /** Requests waiting for their turn. */
  waiting: number;
  /** The most built at once since start. */
  peakRendering: number;
  /** The most requests waiting at once since start. */
  peakWaiting: number;
  /** Documents built (or failed) since start. */
  rendered: number;
  /** Requests refused since start because the line was full. */
  refused: number;
}

export function createRenderQueue(limit = PDF_RENDERS_AT_ONCE, maxWaiting = PDF_QUEUE_MAX_WAITING) {
  let rendering = 0;
  let peakRendering = 0;
  let peakWaiting = 0;
  let rendered = 0;
  let refused = 0;
  const waiting: (() => void)[] = [];

  async function acquire(): Promise<void> {
    // A freed place is handed to the first in line (release keeps the count), so a newcomer never jumps it.
    if (rendering < limit && waiting.length === 0) rendering++;
    else if (waiting.length >= maxWaiting) {
      refused++;
      throw new AppError('service_unavailable', statementMessages.documentsBusy, {
        headers: { 'retry-after': String(PDF_QUEUE_RETRY_AFTER_SECONDS) },
      });
    } else {
      const turn = new Promise<void>((resolve) => waiting.push(resolve));
      peakWaiting = Math.max(peakWaiting, waiting.length);
      await turn;
    }
    peakRendering = Math.max(peakRendering, rendering);
  }

  function release(): void {
    const next = waiting.shift();
    if (next) next();
    else rendering--;
  }

  return {
    /**
     * Runs `build` when its turn comes (it reads what it needs, then calls `yieldBeforeDrawing`); with
     * `maxWaiting` requests already waiting, refuses at once (503 service_unavailable, Retry-After).
     */
    async run<T>(build: () => Promise<T>): Promise<T> {
      await acquire();
      try {
        return await build();
      } finally {
        rendered++;
        release();
      }
    },
    stats(): RenderQueueStats {
      return { rendering, waiting: waiting.length, peakRendering, peakWaiting, rendered, refused };
    },
  };
}

/** Lets the requests that arrived meanwhile be served before a document's synchronous drawing. */
export const yieldBeforeDrawing = () => new Promise<void>((resolve) => setImmediate(resolve));

export type RenderQueue = ReturnType<typeof createRenderQueue>;
