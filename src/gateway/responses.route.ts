// The Responses API (gateway/responses.ts): create, and read or delete a stored response by its id.
import { defineRawRoute } from '../http/raw-route';
import type { ResponsesHandler } from './responses';
import { RESPONSE_ID_PARAMETERS, RESPONSES_CREATE_OPERATION, RESPONSES_DELETE_OPERATION, RESPONSES_GET_OPERATION } from './v1.openapi';

type Deps = { responses: ResponsesHandler };

export const responsesCreateRoute = defineRawRoute<Pick<Deps, 'responses'>>({
  method: 'POST',
  path: '/v1/responses',
  auth: 'apiKey',
  info: 'responses',
  parse: 'none',
  openapi: { operation: RESPONSES_CREATE_OPERATION },
  handle: ({ request }, { responses }) => responses.handle(request),
});

export const responsesGetRoute = defineRawRoute<Deps>({
  method: 'GET',
  path: '/v1/responses/:id',
  auth: 'apiKey',
  info: 'responses',
  openapi: { pathParameters: RESPONSE_ID_PARAMETERS, operation: RESPONSES_GET_OPERATION },
  handle: ({ request, params }, { responses }) => responses.get(request, params.id!),
});

export const responsesDeleteRoute = defineRawRoute<Deps>({
  method: 'DELETE',
  path: '/v1/responses/:id',
  auth: 'apiKey',
  info: 'responses',
  parse: 'none',
  openapi: { operation: RESPONSES_DELETE_OPERATION },
  handle: ({ request, params }, { responses }) => responses.delete(request, params.id!),
});
