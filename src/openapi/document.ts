// The OpenAPI document: generated from the tRPC router's meta, so REST clients and the typed client
// see one definition. `npm run openapi` writes it to openapi.json; the server serves the same document.
//
// This file assembles it: dashboard.ts finishes the tRPC procedures' operations (written by the generator),
// and each raw route brings its own operation in its definition (src/raw-routes.ts lists them); errors.ts,
// examples.ts and webhooks.ts build the error answers, examples and webhook parts they share.
// test/platform/openapi-lint.test.ts holds the result to redocly's recommended rules and ours (redocly.yaml).
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { DASHBOARD_TAGS, finishDashboardOperations, type Operation, type Schema } from './dashboard';
import { ERROR_SCHEMA } from './errors';
import { WEBHOOK_TAG } from './webhooks';
import { V1_SCHEMAS, V1_TAG } from '../gateway/v1.openapi';
import { HEALTH_TAG } from '../http/health.route';
import { openApiPathOf, type OpenApiPaths, securityOf } from '../http/raw-route';
import { SERVICE_TAG } from '../http/site.route';
import { rawRouteDefinitions } from '../raw-routes';
import { appRouter } from '../trpc/router';
import { SERVICE_NAME, SERVICE_VERSION } from '../service-info';

export type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

/** The tags in the order the reference lists them. */
const TAGS: { name: string; description: string }[] = [...DASHBOARD_TAGS, V1_TAG, WEBHOOK_TAG, HEALTH_TAG, SERVICE_TAG];

const SECURITY_SCHEMES = {
  Jwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Токен входа (JWT на 24 часа) из POST /api/auth/login или /api/auth/register: Authorization: Bearer <токен>',
  },
  ApiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'API-ключ Conduit (cdt-…), выданный в панели: Authorization: Bearer cdt-…. Для /v1, а также для баланса и использования, ' +
      'где подходит и JWT (у таких операций указаны обе схемы: достаточно любой)',
  },
};

/** The operation with its `security` where a reader looks for it: before its parameters, body and answers. */
function withSecurity(operation: Record<string, unknown>, security: unknown): Record<string, unknown> {
  const entries = Object.entries(operation);
  const at = entries.findIndex(([key]) => ['parameters', 'requestBody', 'responses'].includes(key));
  entries.splice(at === -1 ? entries.length : at, 0, ['security', security]);
  return Object.fromEntries(entries);
}

export function buildOpenApiDocument(): OpenApiDocument {
  const doc = generateOpenApiDocument(appRouter, {
    title: `${SERVICE_NAME} API`,
    version: SERVICE_VERSION,
    baseUrl: '/',
    description:
      'Conduit: OpenAI-совместимый шлюз к моделям (/v1) с оплатой по токенам и панель управления (/api): аккаунты, API-ключи, ' +
      'баланс и интеграции ассистентов. Ошибки /api имеют вид {"error": {"message": "...", "type": "..."}}, ошибки /v1 — объект ' +
      'OpenAI {"error": {"message", "type", "param", "code"}}. Сообщения на русском; при ошибке в поле сообщение начинается с его названия.',
    securitySchemes: SECURITY_SCHEMES as never,
  });
  const mutable = doc as unknown as {
    info: Record<string, unknown>;
    paths: Record<string, Record<string, Operation>>;
    tags?: { name: string; description?: string }[];
    components: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, unknown> };
  };
  mutable.info.license = { name: 'Проприетарная лицензия', identifier: 'LicenseRef-Conduit-Proprietary' };
  const schemas = (mutable.components.schemas ??= {});
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.Error = ERROR_SCHEMA as unknown as Schema;

  finishDashboardOperations(appRouter, mutable.paths, schemas);

  // The raw routes (/v1, webhooks, health, exports, the site root) by their definitions, in the list's order.
  for (const route of rawRouteDefinitions()) {
    if (!route.openapi) continue;
    const { operation, pathParameters } = route.openapi;
    const item = (mutable.paths[openApiPathOf(route)] ??= {}) as Record<string, unknown>;
    if (pathParameters) item.parameters ??= pathParameters;
    const described = typeof operation === 'function' ? operation(mutable.paths as OpenApiPaths) : operation;
    item[route.method.toLowerCase()] = withSecurity(described, securityOf(route.auth));
  }
  Object.assign(schemas, V1_SCHEMAS);
  mutable.components.securitySchemes = SECURITY_SCHEMES;
  const used = new Set(Object.values(mutable.paths).flatMap((item) => Object.values(item).flatMap((op) => (op as Operation).tags ?? [])));
  const known = TAGS.filter((tag) => used.has(tag.name));
  // A tag no entry describes is listed bare: redocly's tag-description rule then names it.
  const unknown = [...used]
    .filter((name) => !TAGS.some((tag) => tag.name === name))
    .sort()
    .map((name) => ({ name }));
  mutable.tags = [...known, ...unknown];
  return doc;
}

/** Stable text form, as committed in openapi.json. */
export function renderOpenApiDocument(doc: OpenApiDocument = buildOpenApiDocument()): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
