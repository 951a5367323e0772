// The model catalog with our prices: the list, and one model (the SDK's models.retrieve()).
import { AppError, errorCodes } from '../http/errors';
import { gatewayMessages } from './texts';
import { defineRawRoute } from '../http/raw-route';
import type { PriceBook } from '../pricing/prices';
import { type ModelCatalog, modelIdOf } from './models';
import { MODEL_ID_PARAMETERS, MODELS_OPERATION, MODELS_RETRIEVE_OPERATION } from './v1.openapi';

type Deps = {
  models: Pick<ModelCatalog, 'list'>;
  prices: Pick<PriceBook, 'resolve' | 'pricedListJson' | 'pricedModelJson'>;
  /** The price group whose prices and models the caller sees (price-group.ts). */
  viewerGroup: (headers: Headers) => Promise<string>;
};

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

export const modelsListRoute = defineRawRoute<Deps>({
  method: 'GET',
  path: '/v1/models',
  auth: 'none',
  info: 'models',
  openapi: { operation: MODELS_OPERATION },
  handle: async ({ request }, { models, prices, viewerGroup }) => {
    const group = await viewerGroup(request.headers);
    return new Response(prices.pricedListJson(await models.list(), group), { headers: JSON_HEADERS });
  },
});

// The id may hold a slash ("acme/chat"), sent as is or as %2F: the rest of the path, not one segment.
export const modelsRetrieveRoute = defineRawRoute<Deps>({
  method: 'GET',
  path: '/v1/models/*',
  auth: 'none',
  openapi: { path: '/v1/models/{id}', pathParameters: MODEL_ID_PARAMETERS, operation: MODELS_RETRIEVE_OPERATION },
  handle: async ({ params, request }, { models, prices, viewerGroup }) => {
    const id = modelIdOf(params['*']!);
    const group = await viewerGroup(request.headers);
    // A model a request could not ask for (a refused variant, one outside the caller's group, an unpriced
    // one under UNPRICED_MODELS=refuse) is not listed.
    const model = id === null || prices.resolve(id, group).kind !== 'priced' ? undefined : (await models.list()).data.find((m) => m.id === id);
    if (!model) {
      throw new AppError('not_found', gatewayMessages.modelNotFound, { param: 'model', code: errorCodes.modelNotFound });
    }
    return new Response(prices.pricedModelJson(model, group), { headers: JSON_HEADERS });
  },
});
