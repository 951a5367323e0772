// The OpenAPI document: generated from the tRPC router's meta, so REST clients and the typed client
// see one definition. `npm run openapi` writes it to openapi.json; the server serves the same document.
//
// This file assembles it; each route family is described in a file of its own in this folder:
// dashboard.ts the tRPC procedures (written by the generator, finished by rule), v1.ts the
// OpenAI-compatible /v1 routes, webhooks.ts the inbound webhooks, health.ts the health checks,
// usage-export.ts the CSV exports, statement.ts the statement's CSV, the closing documents' PDFs and the site root; errors.ts and examples.ts build the error answers and examples they
// share. test/openapi-lint.test.ts holds the result to redocly's recommended rules and ours (redocly.yaml).
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { DASHBOARD_TAGS, finishDashboardOperations, type Operation, type Schema } from './dashboard';
import { ERROR_SCHEMA } from './errors';
import { HEALTH_TAG, healthPaths } from './health';
import { SERVICE_TAG, statementPaths } from './statement';
import { usageExportPaths } from './usage-export';
import { adminStatsExportPaths } from './admin-stats-export';
import { V1_TAG, v1OpenApi } from './v1';
import { WEBHOOK_TAG, webhookPaths } from './webhooks';
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

  // The /v1 routes, the inbound webhooks and the health checks are raw handlers, described by hand.
  const v1 = v1OpenApi();
  Object.assign(mutable.paths, v1.paths, webhookPaths(), healthPaths());
  // The CSV export takes /api/usage's filters, as the generator described them there.
  const filters = (mutable.paths['/api/usage']?.get?.parameters ?? []).filter((p) => ['from', 'to', 'keyId'].includes(p.name));
  Object.assign(mutable.paths, usageExportPaths(filters), statementPaths());
  // The daily figures' CSV takes the JSON operation's period.
  Object.assign(mutable.paths, adminStatsExportPaths(mutable.paths['/api/admin/stats/daily']?.get?.parameters ?? []));
  Object.assign(schemas, v1.schemas);
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
  return JSON.stringify(doc, null, 2) + '\n';
}
