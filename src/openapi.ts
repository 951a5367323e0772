// The OpenAPI document: generated from the tRPC router's meta, so REST clients and the typed client
// see one definition. `npm run openapi` writes it to openapi.json; the server serves the same document.
import { generateOpenApiDocument } from 'trpc-to-openapi';
import pkg from '../package.json';
import { errorTypes } from './http/errors';
import { procedureMetas } from './trpc/meta';
import { appRouter } from './trpc/router';
import { V1_TAG, v1OpenApi } from './openapi-v1';

export const SERVICE_NAME = 'Conduit';
export const SERVICE_VERSION: string = pkg.version;

export type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

// trpc-to-openapi describes its own error body; ours is {error:{message,type}}, so the document says so.
const ERROR_SCHEMA = {
  type: 'object',
  description: 'Ошибка: сообщение на русском и машинный тип',
  properties: {
    error: {
      type: 'object',
      properties: {
        message: { type: 'string', description: 'Сообщение для человека (на русском)' },
        type: {
          type: 'string',
          enum: Object.keys(errorTypes),
          description: 'Машинный тип ошибки',
        },
      },
      required: ['message', 'type'],
    },
  },
  required: ['error'],
} as const;

type Operation = { responses?: Record<string, unknown> };

export function buildOpenApiDocument(): OpenApiDocument {
  const doc = generateOpenApiDocument(appRouter, {
    title: `${SERVICE_NAME} API`,
    version: SERVICE_VERSION,
    baseUrl: '/',
    description:
      'Панель управления Conduit: аккаунты, API-ключи, баланс и интеграции ассистентов. ' +
      'Ошибки всегда имеют вид {"error": {"message": "...", "type": "..."}}.',
  });
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) {
    if (name.startsWith('error.')) schemas[name] = ERROR_SCHEMA;
  }
  // Creations answer 201; the generator only knows 200.
  for (const { meta } of procedureMetas(appRouter)) {
    if (meta?.successStatus && meta.successStatus !== 200 && meta.openapi) {
      const item = doc.paths?.[meta.openapi.path.replace(/:(\w+)/g, '{$1}')] as Record<string, Operation> | undefined;
      const op = item?.[meta.openapi.method.toLowerCase()];
      if (op?.responses?.['200']) {
        op.responses[String(meta.successStatus)] = op.responses['200'];
        delete op.responses['200'];
      }
    }
  }
  // The /v1 routes are raw handlers, described by hand beside the generated dashboard API.
  const v1 = v1OpenApi();
  const mutable = doc as unknown as {
    paths: Record<string, unknown>;
    tags?: { name: string; description?: string }[];
    components: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
  };
  Object.assign(mutable.paths, v1.paths);
  mutable.components.schemas = { ...mutable.components.schemas, ...v1.schemas };
  mutable.components.securitySchemes = { ...mutable.components.securitySchemes, ...v1.securitySchemes };
  mutable.tags = [...(mutable.tags ?? []), V1_TAG];
  return doc;
}

/** Stable text form, as committed in openapi.json. */
export function renderOpenApiDocument(doc: OpenApiDocument = buildOpenApiDocument()): string {
  return JSON.stringify(doc, null, 2) + '\n';
}
