// Request bodies are read here, once, with the size limit enforced while reading.
import { AppError } from './errors';
import { errorMessages } from './messages';

export async function readBodyText(request: Request, limitBytes: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limitBytes) {
    throw new AppError('payload_too_large');
  }
  if (!request.body) return '';
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
  if (chunks.length === 1) return new TextDecoder().decode(chunks[0]);
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** Parses a JSON body; malformed JSON is a 400, an oversized body a 413. */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  const text = await readBodyText(request, limitBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('invalid_request_error', errorMessages.malformedJson);
  }
}
