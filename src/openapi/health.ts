// The health checks in the OpenAPI document: raw routes for the load balancer and monitoring (no tRPC
// procedures), described by hand; none takes a credential.
import { dashboardError } from './errors';

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

export function healthPaths() {
  return {
    '/health': {
      get: {
        tags: [HEALTH_TAG.name],
        operationId: 'health.process',
        summary: 'Процесс и база данных',
        description: '200, когда процесс отвечает и база данных доступна; 503, когда нет.',
        security: [],
        responses: {
          '200': { description: 'Работает', content: healthBody({ status: 'ok' }) },
          '429': dashboardError(429),
          '503': { description: 'База данных недоступна', content: healthBody({ status: 'unavailable', database: 'unreachable' }) },
        },
      },
    },
    '/health/upstream': {
      get: {
        tags: [HEALTH_TAG.name],
        operationId: 'health.upstream',
        summary: 'Доступность сервиса моделей',
        description:
          'Запрашивает список моделей у поставщика default. 200, пока сервис может ответить хоть на какую-то модель: default отвечает (и нет маршрута «*») или у какого-либо маршрута есть включённый поставщик, который не отключён и не на паузе; иначе 503. Без учётных данных ответ — только {status}. С JWT администратора в Authorization ответ подробный: задержка, ошибка проверки default, состояние каждого поставщика и маршруты без поставщика (unservedRoutes); другой токен — 401 или 403.',
        security: [],
        responses: {
          '200': {
            description: 'Сервис моделей отвечает (с JWT администратора — подробности)',
            content: healthBody({
              status: 'ok',
              latencyMs: 84,
              providers: [
                { id: 'default', name: 'default', enabled: true, state: 'up', consecutiveFailures: 0, cooldownUntil: null, lastError: null, latencyMs: 84 },
              ],
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
  };
}
