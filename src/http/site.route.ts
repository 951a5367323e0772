// The site's own routes: the root (the information document for an API client, a page saying what the
// service is for a browser), the API reference page and its assets, and the dashboard's page and files.
import type { Config } from '../config';
import { dashboardError } from '../openapi/errors';
import { createDashboard } from './dashboard';
import { FAVICON_SVG, faviconIco } from './favicon';
import { DOCS_HTML, docsAsset } from './docs-page';
import { AppError } from './errors';
import { type InformationEndpoints, informationDocument } from './information';
import { errorMessages } from './messages';
import { defineRawRoute } from './raw-route';
import { acceptsHtml, siteRootHtml } from './site-root';

export const SERVICE_TAG = { name: 'service', description: 'Сведения о сервисе: информационный документ и страница о сервисе со входом в панель управления' };

const dashboard = createDashboard();

// A browser (it asks for HTML) gets the page about the service with «Войти» and «Зарегистрироваться»; API
// clients get the information document. Its
// operations come with the deps: they are listed from every route, this one's list included.
export const siteRootRoute = defineRawRoute<{
  config: Pick<Config, 'supportContact' | 'tokenPrice' | 'publicBaseUrl'>;
  informationEndpoints: InformationEndpoints;
}>({
  method: 'GET',
  path: '/',
  auth: 'none',
  openapi: {
    operation: {
      tags: [SERVICE_TAG.name],
      operationId: 'service.information',
      summary: 'Информационный документ сервиса (браузеру — страница о сервисе)',
      description:
        'Клиенту API (Accept: application/json, */* или без Accept) — JSON: имя и версия сервиса, адрес документации (/docs), ' +
        'панели (/app), контакт поддержки (supportContact, SUPPORT_CONTACT или null), список операций и базовый адрес /v1. ' +
        'Браузеру (Accept называет text/html) — страница о сервисе со ссылками «Войти» и «Зарегистрироваться» (/app/login, /app/register). Ответ зависит от Accept (Vary: Accept).',
      parameters: [
        {
          name: 'accept',
          in: 'header',
          required: false,
          description: 'text/html — страница о сервисе; иначе JSON',
          schema: { type: 'string' },
          example: 'application/json',
        },
      ],
      responses: {
        '200': {
          description: 'Информационный документ (клиенту API) или страница о сервисе (браузеру)',
          content: {
            'application/json': {
              schema: { type: 'object', description: 'Имя, версия, ссылки и список операций сервиса' },
              example: { name: 'Conduit', version: '0.1.0', documentation: '/docs', dashboard: '/app', supportContact: 'support@conduit.example' },
            },
            'text/html': {
              schema: { type: 'string', description: 'Страница о сервисе: что он делает, базовый адрес, контакт поддержки, «Войти» и «Зарегистрироваться»' },
              example: siteRootHtml({ supportContact: 'support@conduit.example', publicBaseUrl: 'https://conduit.example' }),
            },
          },
        },
        '429': dashboardError(429),
      },
    },
  },
  handle: ({ request }, { config, informationEndpoints }) =>
    acceptsHtml(request.headers.get('accept'))
      ? new Response(siteRootHtml(config), { headers: { vary: 'Accept', 'content-type': 'text/html; charset=utf-8' } })
      : new Response(JSON.stringify(informationDocument(config, informationEndpoints)), {
          headers: { 'content-type': 'application/json; charset=utf-8', vary: 'Accept' },
        }),
});

/** The icons change only with a release: a day in caches, then asked again. */
const ICON_HEADERS = { 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' };

export const faviconRoute = defineRawRoute<unknown>({
  method: 'GET',
  path: '/favicon.ico',
  auth: 'none',
  handle: () => new Response(new Uint8Array(faviconIco()), { headers: { ...ICON_HEADERS, 'content-type': 'image/x-icon' } }),
});

export const faviconSvgRoute = defineRawRoute<unknown>({
  method: 'GET',
  path: '/favicon.svg',
  auth: 'none',
  handle: () => new Response(FAVICON_SVG, { headers: { ...ICON_HEADERS, 'content-type': 'image/svg+xml' } }),
});

export const docsPageRoute = defineRawRoute<unknown>({
  method: 'GET',
  path: '/docs',
  auth: 'none',
  info: 'docs',
  handle: () => new Response(DOCS_HTML, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
});

export const dashboardPageRoute = defineRawRoute<unknown>({
  method: 'GET',
  path: '/app',
  auth: 'none',
  handle: ({ request }) => dashboard.serve('', request),
});

export const dashboardFilesRoute = defineRawRoute<unknown>({
  method: 'GET',
  path: '/app/*',
  auth: 'none',
  handle: ({ params, request }) => dashboard.serve(params['*']!, request),
});

export const docsAssetRoute = defineRawRoute<unknown>({
  method: 'GET',
  path: '/docs/assets/:name',
  auth: 'none',
  handle: ({ params }) => {
    const asset = docsAsset(params.name!);
    if (!asset) throw new AppError('not_found', errorMessages.routeNotFound);
    return asset;
  },
});
