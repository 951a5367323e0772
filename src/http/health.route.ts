// The health checks for the load balancer and monitoring: whether the process and its database answer, and
// whether the model service does (with the providers' states for an admin's JWT).
import type { Authenticator } from '../auth/authenticate';
import type { DatabaseHandle } from '../db/client';
import type { ModelCatalog } from '../gateway/models';
import type { Routing } from '../gateway/routing/registry';
import { upstreamStatus } from '../gateway/routing/status';
import type { Logger } from '../logger';
import { dashboardError } from '../openapi/errors';
import { defineRawRoute } from './raw-route';

export const HEALTH_TAG = { name: 'health', description: 'Проверка работоспособности для балансировщика и мониторинга' };

const healthBody = (example: Record<string, unknown>) => ({
  'application/json': {
    schema: {
      type: 'object',
      required: ['status'],
      properties: {
        status: { type: 'string', enum: ['ok', 'unavailable'] },
        database: { type: 'string', description: 'Что с базой данных, когда она недоступна' },
        latencyMs: { type: 'integer', description: 'Сколько миллисекунд занял запрос списка моделей' },
        error: { type: 'string', description: 'Почему сервис моделей недоступен' },
        providers: {
          type: 'array',
          description: 'Поставщики моделей (первым — default) и их состояние',
          items: {
            type: 'object',
            required: ['id', 'name', 'enabled', 'state', 'consecutiveFailures', 'cooldownUntil', 'lastError'],
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              enabled: { type: 'boolean' },
              state: { type: 'string', enum: ['up', 'cooling_down', 'disabled'] },
              consecutiveFailures: { type: 'integer', minimum: 0 },
              cooldownUntil: { type: ['string', 'null'], format: 'date-time' },
              lastError: { type: ['string', 'null'] },
              latencyMs: { type: 'number', description: 'Только у default: сколько миллисекунд занял запрос списка моделей' },
            },
          },
        },
        unservedRoutes: {
          type: 'array',
          items: { type: 'string' },
          description: 'Маршруты, ни один поставщик которых сейчас не принимает запросы',
        },
      },
    },
    example,
  },
});

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

export const healthRoute = defineRawRoute<{ database: Pick<DatabaseHandle, 'query'>; logger: Pick<Logger, 'warn'> }>({
  method: 'GET',
  path: '/health',
  auth: 'none',
  info: 'health',
  openapi: {
    operation: {
      tags: [HEALTH_TAG.name],
      operationId: 'health.process',
      summary: 'Процесс и база данных',
      description: '200, когда процесс отвечает и база данных доступна; 503, когда нет.',
      responses: {
        '200': { description: 'Работает', content: healthBody({ status: 'ok' }) },
        '429': dashboardError(429),
        '503': { description: 'База данных недоступна', content: healthBody({ status: 'unavailable', database: 'unreachable' }) },
      },
    },
  },
  handle: async (_input, { database, logger }) => {
    try {
      await database.query('select 1');
      return json({ status: 'ok' });
    } catch (error) {
      logger.warn('health check failed', { error });
      return json({ status: 'unavailable', database: 'unreachable' }, 503);
    }
  },
});

// For a load balancer, `{status}` only; the providers, their states and last errors for an admin's JWT
// (another credential is refused as on any admin route), so no credential is required.
export const upstreamHealthRoute = defineRawRoute<{ authenticator: Pick<Authenticator, 'admin'>; routing: Routing; models: Pick<ModelCatalog, 'probe'> }>({
  method: 'GET',
  path: '/health/upstream',
  auth: 'none',
  info: 'upstreamHealth',
  openapi: {
    operation: {
      tags: [HEALTH_TAG.name],
      operationId: 'health.upstream',
      summary: 'Доступность сервиса моделей',
      description:
        'Запрашивает список моделей у поставщика default. 200, пока сервис может ответить хоть на какую-то модель: default отвечает (и нет маршрута «*») или у какого-либо маршрута есть включённый поставщик, который не отключён и не на паузе; иначе 503. Без учётных данных ответ — только {status}. С JWT администратора в Authorization ответ подробный: задержка, ошибка проверки default, состояние каждого поставщика и маршруты без поставщика (unservedRoutes); другой токен — 401 или 403.',
      responses: {
        '200': {
          description: 'Сервис моделей отвечает (с JWT администратора — подробности)',
          content: healthBody({
            status: 'ok',
            latencyMs: 84,
            providers: [{ id: 'default', name: 'default', enabled: true, state: 'up', consecutiveFailures: 0, cooldownUntil: null, lastError: null, latencyMs: 84 }],
          }),
        },
        '401': dashboardError(401),
        '403': dashboardError(403),
        '429': dashboardError(429),
        '503': {
          description: 'Сервис моделей недоступен',
          content: healthBody({
            status: 'unavailable',
            latencyMs: 5000,
            error: 'timeout',
            providers: [
              { id: 'default', name: 'default', enabled: true, state: 'up', consecutiveFailures: 0, cooldownUntil: null, lastError: null, latencyMs: 5000 },
            ],
          }),
        },
      },
    },
  },
  handle: async ({ request }, { authenticator, routing, models }) => {
    const asAdmin = request.headers.has('authorization');
    if (asAdmin) await authenticator.admin(request.headers);
    const status = upstreamStatus(routing, await models.probe());
    return json(asAdmin ? status : { status: status.status }, status.status === 'ok' ? 200 : 503);
  },
});
