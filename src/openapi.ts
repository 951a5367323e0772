// The OpenAPI document: generated from the tRPC router's meta, so REST clients and the typed client
// see one definition. `npm run openapi` writes it to openapi.json; the server serves the same document.
import { generateOpenApiDocument } from 'trpc-to-openapi';
import pkg from '../package.json';
import { appRouter } from './trpc/router';

export const SERVICE_NAME = 'Conduit';
export const SERVICE_VERSION: string = pkg.version;

export type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

export function buildOpenApiDocument(): OpenApiDocument {
  return generateOpenApiDocument(appRouter, {
    title: `${SERVICE_NAME} API`,
    version: SERVICE_VERSION,
    baseUrl: '/',
    description:
      'Панель управления Conduit: аккаунты, API-ключи, баланс и интеграции ассистентов. ' +
      'Ошибки всегда имеют вид {"error": {"message": "...", "type": "..."}}.',
  });
}

/** Stable text form, as committed in openapi.json. */
export function renderOpenApiDocument(doc: OpenApiDocument = buildOpenApiDocument()): string {
  return JSON.stringify(doc, null, 2) + '\n';
}
