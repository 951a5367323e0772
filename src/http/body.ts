// Request bodies are read here, once, with the size limit enforced while reading.
import { AppError } from './errors';
import { assertJsonDepth } from './json';

/** The body's bytes, refused with 413 as soon as they pass the limit. */
export async function readBodyBytes(request: Request, limitBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limitBytes) {
    throw new AppError('payload_too_large');
  }
  if (!request.body) return new Uint8Array();
  // Counting while reading also catches chunked bodies that declare no length.
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => {});
      throw new AppError('payload_too_large');
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

export async function readBodyText(request: Request, limitBytes: number): Promise<string> {
  return new TextDecoder().decode(await readBodyBytes(request, limitBytes));
}

/**
 * The same request with its body already read under the limit, for handlers that read bodies on their
 * own and know no limit (tRPC's fetch adapter): a body over the limit is a 413 before they start, and
 * with `json`, one nested too deep a 400 (http/json.ts).
 */
export async function withBodyRead(request: Request, limitBytes: number, options: { json?: boolean } = {}): Promise<Request> {
  if (!request.body) return request;
  const body = await readBodyBytes(request, limitBytes);
  if (options.json) assertJsonDepth(new TextDecoder().decode(body));
  const headers = new Headers(request.headers);
  headers.delete('transfer-encoding');
  headers.set('content-length', String(body.byteLength));
  // Chunks read from a request are backed by plain ArrayBuffers (never shared memory).
  return new Request(request.url, { method: request.method, headers, body: body as Uint8Array<ArrayBuffer>, signal: request.signal });
}
