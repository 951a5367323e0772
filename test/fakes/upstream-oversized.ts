// The fake upstream's answers of a chosen, large size (test/fakes/upstream.ts): fake/huge-json-<N>, a JSON answer
// of about N bytes, and fake/endless-line-<N>, a stream whose data line never ends; and the headers every answer
// of the fake carries, as OpenAI's do.
/** Hex of `bytes` random bytes, for the ids the fake makes up. */
export const randomHex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');

/** The headers of every answer of the fake: its content type, a request id, the processing time, `extra`. */
export function fakeHeaders(contentType: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': contentType, 'x-request-id': `req_${randomHex(16)}`, 'openai-processing-ms': '1', ...extra };
}

const encoder = new TextEncoder();
const PIECE_64K = 'a'.repeat(64 * 1024);

/** `head`, then `fill` bytes of "a" in 64 KB pieces, then `tail`: a body of a chosen size, no content-length. */
function paddedStream(head: string, fill: number, tail: string): ReadableStream<Uint8Array> {
  let left = fill;
  let state: 'head' | 'fill' | 'tail' | 'done' = 'head';
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state === 'head') {
        controller.enqueue(encoder.encode(head));
        state = 'fill';
      } else if (state === 'fill' && left > 0) {
        const n = Math.min(left, PIECE_64K.length);
        controller.enqueue(encoder.encode(PIECE_64K.slice(0, n)));
        left -= n;
      } else if (state !== 'done' && tail) {
        controller.enqueue(encoder.encode(tail));
        state = 'done';
      } else {
        controller.close();
      }
    },
  });
}

/** fake/huge-json-<N>: a chat answer of about N bytes; null for any other model. */
export function hugeJson(model: string): Response | null {
  const size = /^fake\/huge-json-(\d+)$/.exec(model);
  if (!size) return null;
  const head = `{"id":"chatcmpl-huge","object":"chat.completion","created":1,"model":"${model}","choices":[{"index":0,"message":{"role":"assistant","content":"`;
  const tail = '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}';
  return new Response(paddedStream(head, Math.max(0, Number(size[1]) - head.length - tail.length), tail), {
    headers: fakeHeaders('application/json'),
  });
}

/** fake/endless-line-<N>: a stream whose second event's data line never ends; null for any other model. */
export function endlessLine(model: string, kind: 'chat' | 'responses'): Response | null {
  const size = /^fake\/endless-line-(\d+)$/.exec(model);
  if (!size) return null;
  const head =
    kind === 'chat'
      ? `data: {"id":"chatcmpl-endless","object":"chat.completion.chunk","created":1,"model":"${model}","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"`
      : `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hel"}\n\nevent: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"`;
  return new Response(paddedStream(head, Number(size[1]), ''), { headers: fakeHeaders('text/event-stream; charset=utf-8') });
}
