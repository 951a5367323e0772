// GET /metrics: the Prometheus exposition, behind METRICS_TOKEN when one is set.
import type { Config } from '../config';
import { bearerToken } from '../http/bearer';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { defineRawRoute } from '../http/raw-route';
import { type Metrics, metricsTokenMatches } from './registry';

export const metricsRoute = defineRawRoute<{ config: Pick<Config, 'metricsToken'>; metrics: Pick<Metrics, 'render'> }>({
  method: 'GET',
  path: '/metrics',
  auth: 'none',
  handle: async ({ request }, { config, metrics }) => {
    const token = config.metricsToken;
    if (token && !metricsTokenMatches(token, bearerToken(request.headers))) {
      throw new AppError('unauthorized', errorMessages.metricsToken);
    }
    const { body, contentType } = await metrics.render();
    return new Response(body, { headers: { 'content-type': contentType } });
  },
});
