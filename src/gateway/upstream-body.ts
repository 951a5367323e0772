// The text of an upstream answer that is not a stream, read under UPSTREAM_MAX_BODY_BYTES.

/** An upstream answer (not a stream) longer than UPSTREAM_MAX_BODY_BYTES: `bytes` were read before the read stopped. */
export class UpstreamAnswerTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`answer over UPSTREAM_MAX_BODY_BYTES (${bytes} bytes read)`);
  }
}

/**
 * The text of an upstream answer that is not a stream, read up to `maxBytes`: one host's 100 MB body
 * must not take the process's memory (every copy of it is held at once: bytes, text, the parse). Past the
 * limit the read stops and UpstreamAnswerTooLarge is thrown. A declared length within it (of a body not
 * compressed) is read whole at once: HTTP framing holds the body to it.
 */
export async function readUpstreamText(response: Response, maxBytes: number): Promise<string> {
  // A compressed body's declared length is not what it decompresses to.
  const declared = response.headers.has('content-encoding') ? Number.NaN : Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared <= maxBytes || !response.body) return response.text();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new UpstreamAnswerTooLarge(bytes);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}
