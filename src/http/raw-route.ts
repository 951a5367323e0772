// A raw route (no tRPC procedure: /v1, webhooks, CSV/PDF exports, mailed-link pages, health, the site) is
// described once, beside its feature: where Elysia mounts it, the credential it takes, its OpenAPI
// operation, its place in the information document and its handler. app.ts mounts the definitions,
// src/openapi/document.ts and the information document (http/information.ts) describe them.
import type { InformationEntry } from './information';

export type RawRouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The credential a route takes, as its OpenAPI `security` states it. A webhook is verified by its own secret
 * (in the URL, a header or the event), not by a user's credential, so, like `none`, it has no requirement.
 */
export type RawRouteAuth = 'none' | 'jwt' | 'apiKey' | 'jwtOrApiKey' | 'admin' | 'webhookSecret';

/** An OpenAPI object as JSON; this floor knows no generator types. */
export type OpenApiObject = Record<string, unknown>;
/** The document's paths as the generator and the routes before this one wrote them. */
export type OpenApiPaths = Record<string, Record<string, { parameters?: OpenApiObject[] } & OpenApiObject>>;

export interface RawRouteOpenApi {
  /** The OpenAPI path, where the mount path does not say it (a final `*` has no name). */
  path?: string;
  /** Parameters of the path item, shared by every operation on the path (the first route on it sets them). */
  pathParameters?: OpenApiObject[];
  /**
   * The operation without `security` (the document writes it from `auth`). A function when the operation
   * takes parameters from a generated one (an export takes its JSON operation's filters), so the two cannot drift.
   */
  operation: OpenApiObject | ((paths: OpenApiPaths) => OpenApiObject);
}

export interface RawRouteInput {
  request: Request;
  params: Record<string, string>;
}

export interface RawRoute<D> {
  method: RawRouteMethod;
  /** Elysia's form: static segments, `:name` for one segment, a final `*` for the rest. */
  path: string;
  auth: RawRouteAuth;
  /** `none` where the handler reads the body itself (under its own limit, or not at all). */
  parse?: 'none';
  /**
   * Whether this route serves the request; one it does not is the REST procedure's on the same path
   * (a mailed link's page form posts form-encoded here, a client's JSON POST is the procedure).
   */
  serves?: (request: Request) => boolean;
  /** Undescribed routes (the dashboard's files, /metrics, the document itself) are not in the OpenAPI document. */
  openapi?: RawRouteOpenApi;
  /** Where GET / lists it; unlisted routes (the dashboard's files, a page's form) have none. */
  info?: InformationEntry;
  handle(input: RawRouteInput, deps: D): Response | Promise<Response>;
}

/** Holds the definition's types together; `D` is what the handler uses, no more. */
export function defineRawRoute<D>(route: RawRoute<D>): RawRoute<D> {
  return route;
}

/** The OpenAPI form of a mount path: `:id` becomes `{id}`. */
export function openApiPathOf(route: Pick<RawRoute<unknown>, 'path' | 'openapi'>): string {
  return route.openapi?.path ?? route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The security requirement `auth` stands for (the schemes are named in src/openapi/document.ts). */
export function securityOf(auth: RawRouteAuth): Record<string, string[]>[] {
  switch (auth) {
    case 'none':
    case 'webhookSecret':
      return [];
    case 'jwt':
    case 'admin':
      return [{ Jwt: [] }];
    case 'apiKey':
      return [{ ApiKey: [] }];
    case 'jwtOrApiKey':
      return [{ Jwt: [] }, { ApiKey: [] }];
  }
}
