// GET /openapi.json: the OpenAPI document the server serves. Not in src/raw-routes.ts, since the document
// is made from that list; app.ts mounts it beside the list.
import { defineRawRoute } from '../http/raw-route';

// The generator (trpc-to-openapi and what it loads: ~6 MB of resident memory) is loaded when the document
// is first asked for, not by every instance at start; the document is built once.
let openApiText: Promise<string> | undefined;
const openApi = () => (openApiText ??= import('./document').then(({ buildOpenApiDocument }) => JSON.stringify(buildOpenApiDocument())));

export const openApiDocumentRoute = defineRawRoute<unknown>({
  method: 'GET',
  path: '/openapi.json',
  auth: 'none',
  info: 'openapi',
  handle: async () => new Response(await openApi(), { headers: { 'content-type': 'application/json; charset=utf-8' } }),
});
