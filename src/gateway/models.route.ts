// The model catalog with our prices: the list, and one model (the SDK's models.retrieve()).
import { AppError, errorCodes } from '../http/errors';
import { gatewayMessages } from './texts';
import { defineRawRoute } from '../http/raw-route';
import type { PriceBook } from '../pricing/prices';
import { type ModelCatalog, modelIdOf } from './models';
import { MODEL_ID_PARAMETERS, MODELS_OPERATION, MODELS_RETRIEVE_OPERATION } from './v1.openapi';

type Deps = { models: Pick<ModelCatalog, 'list'>; prices: Pick<PriceBook, 'resolve' | 'pricedListJson' | 'pricedModelJson'> };

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

export const modelsListRoute = defineRawRoute<Deps>({
  method: 'GET',
  path: '/v1/models',
  auth: 'none',
  info: 'models',
  openapi: { operation: MODELS_OPERATION },
  handle: async (_input, { models, prices }) => new Response(prices.pricedListJson(await models.list()), { headers: JSON_HEADERS }),
});

// The id may hold a slash ("acme/chat"), sent as is or as %2F: the rest of the path, not one segment.
export const modelsRetrieveRoute = defineRawRoute<Deps>({
  method: 'GET',
  path: '/v1/models/*',
  auth: 'none',
  openapi: { path: '/v1/models/{id}', pathParameters: MODEL_ID_PARAMETERS, operation: MODELS_RETRIEVE_OPERATION },
  handle: async ({ params }, { models, prices }) => {
    const id = modelIdOf(params['*']!);
    // A model a request could not ask for (a refused variant, an unpriced one under UNPRICED_MODELS=refuse) is not listed.
    const model = id === null || prices.resolve(id).kind !== 'priced' ? undefined : (await models.list()).data.find((m) => m.id === id);
    if (!model) {
      throw new AppError('not_found', gatewayMessages.modelNotFound, { param: 'model', code: errorCodes.modelNotFound });
    }
    return new Response(prices.pricedModelJson(model), { headers: JSON_HEADERS });
  },
});
