// POST /v1/embeddings: the OpenAI-compatible embeddings call (gateway/embeddings.ts), billed to the API key.
import { defineRawRoute } from '../http/raw-route';
import type { EmbeddingsHandler } from './embeddings';
import { EMBEDDINGS_OPERATION } from './v1.openapi';

export const embeddingsRoute = defineRawRoute<{ embeddings: Pick<EmbeddingsHandler, 'handle'> }>({
  method: 'POST',
  path: '/v1/embeddings',
  auth: 'apiKey',
  info: 'embeddings',
  parse: 'none',
  openapi: { operation: EMBEDDINGS_OPERATION },
  handle: ({ request }, { embeddings }) => embeddings.handle(request),
});
