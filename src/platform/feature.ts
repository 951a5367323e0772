// A feature plugs in: its folder exports one definition saying what it builds from the base and the
// features before it in the list (src/features.ts), what it starts, and the routes it serves. The
// composition (compose.ts) reads the list; adding a feature is one folder and one line there.
import type { AnyRouter } from '@trpc/server';
import type { Config } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { Database, DatabaseHandle } from '../db/client';
import type { RawRoute } from '../http/raw-route';
import type { OutboxWorker } from '../jobs/outbox';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics/registry';
import type { Events } from './events';
import type { Lifecycle } from './lifecycle';

/** What every feature may use: the process's shared pieces, none of them a feature. */
export interface Base {
  config: Config;
  database: DatabaseHandle;
  db: Database;
  logger: Logger;
  /** Names this process among the instances sharing the database (leases, outbox claims). */
  instanceId: string;
  lifecycle: Lifecycle;
  events: Events;
  secretBox: SecretBox;
  metrics: Metrics;
  outbox: OutboxWorker;
}

/**
 * The handle by which other features (through the owner's index.ts) and the owner's own procedures reach a
 * feature's API. It lives in a file that imports only types, so a router can name its feature's slot without
 * importing the definition that lists the router.
 */
export interface Slot<Api> {
  readonly name: string;
  /** Never set: it only carries the API's type. */
  readonly api?: Api;
}

export function defineSlot<Api>(name: string): Slot<Api> {
  return { name };
}

/** Another feature's API; only features earlier in the list can be used (the composition refuses others). */
export type Use = <Api>(slot: Slot<Api>) => Api;

export interface FeatureDefinition<Api, Routers extends Record<string, AnyRouter> = Record<string, AnyRouter>> {
  slot: Slot<Api>;
  /** Builds the feature's API. Nothing runs yet: background work begins in `start`. */
  create(base: Base, use: Use): Api;
  /** Starts background work, in list order, registering each piece's stop with `base.lifecycle`. */
  start?(api: Api, base: Base): Promise<void> | void;
  /** The tRPC routers the feature serves, by their key in the root router (the typed client's path). */
  routers?: Routers;
  /**
   * The raw routes the feature serves (/v1, webhooks, exports, mailed-link pages), each described once
   * (http/raw-route.ts); their handlers get the feature's API over the base.
   */
  rawRoutes?: readonly RawRoute<Api & Base>[];
}

/** Identity, for the types: `Api` and `Routers` are inferred from the definition. */
export function defineFeature<Api, Routers extends Record<string, AnyRouter> = Record<string, never>>(
  definition: FeatureDefinition<Api, Routers>,
): FeatureDefinition<Api, Routers> {
  return definition;
}

// biome-ignore lint/suspicious/noExplicitAny: a list of definitions of every API type
export type AnyFeature = FeatureDefinition<any, Record<string, AnyRouter>>;
