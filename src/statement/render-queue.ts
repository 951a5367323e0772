// The closing documents wait here for their turn. Drawing one is tens of milliseconds of synchronous work on
// the event loop (pdfkit lays out the text and subsets the embedded font), after a few database reads; 60
// requests at once held every other request — /health included — for seconds, behind their drawing and
// behind their queries in the connection pool. So a document request, once authenticated and checked,
// queues in arrival order and at most PDF_RENDERS_AT_ONCE are built (read and drawn) at a time; the drawing
// starts on a fresh turn of the event loop, so what arrived meanwhile is served first. (A Worker would take
// the drawing off the loop altogether, but in Bun each costs ~50–100 MB of resident memory and over a
// second to start, for files a user fetches a few times a month.)

export const PDF_RENDERS_AT_ONCE = 2;

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
}

export function createRenderQueue(limit = PDF_RENDERS_AT_ONCE) {
  let rendering = 0;
  let peakRendering = 0;
  let peakWaiting = 0;
  let rendered = 0;
  const waiting: (() => void)[] = [];

  async function acquire(): Promise<void> {
    // A freed place is handed to the first in line (release keeps the count), so a newcomer never jumps it.
    if (rendering < limit && waiting.length === 0) rendering++;
    else {
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
    /** Runs `build` when its turn comes (it reads what it needs, then calls `yieldBeforeDrawing`). */
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
      return { rendering, waiting: waiting.length, peakRendering, peakWaiting, rendered };
    },
  };
}

/** Lets the requests that arrived meanwhile be served before a document's synchronous drawing. */
export const yieldBeforeDrawing = () => new Promise<void>((resolve) => setImmediate(resolve));

export type RenderQueue = ReturnType<typeof createRenderQueue>;
