// Starts one Conduit instance: database → migrations → services → HTTP; and stops it gracefully.
import type { Server } from 'bun';
import { createApp } from './app';
import type { Config } from './config';
import { openDatabase } from './db/client';
import { runMigrations } from './db/migrate';
import { AppError, errorResponse } from './http/errors';
import { assignRequestId } from './http/request-id';
import { createLogger, type Logger } from './logger';
import { createServices, type Services } from './services';

export interface RunningInstance {
  url: string;
  port: number;
  services: Services;
  server: Server<unknown>;
  /** Stops accepting, lets in-flight requests finish within the grace period, flushes, closes the database. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
}

export async function startInstance(config: Config, options: StartOptions = {}): Promise<RunningInstance> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await runMigrations(database, config.databaseUrl);
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  const services = createServices({ config, database, logger });
  await services.start();
  const app = createApp(services);
  const limit = config.bodyLimitBytes;

  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // Long model answers stream quietly for a while; Bun's 10 s default would cut them.
    idleTimeout: 255,
    // Our own limit answers 413 in our error format; Bun's is only a backstop for bodies far past it.
    maxRequestBodySize: limit * 2 + 1024 * 1024,
    async fetch(request) {
      const started = performance.now();
      const requestId = assignRequestId(request);
      let response: Response;
      try {
        const declared = request.headers.get('content-length');
        response =
          declared !== null && Number(declared) > limit
            ? errorResponse(new AppError('payload_too_large'))
            : await app.handle(request);
      } catch (error) {
        logger.error('request crashed', { requestId, error });
        response = errorResponse(new AppError('internal_error'));
      }
      try {
        response.headers.set('x-request-id', requestId);
      } catch {
        // Headers of a relayed fetch Response are immutable; the id is still in the log line.
      }
      if (config.logRequests) {
        logger.info('request', {
          requestId,
          method: request.method,
          path: new URL(request.url).pathname,
          status: response.status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
        });
      }
      return response;
    },
  });

  const port = server.port ?? config.port;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    services,
    server,
    stop(graceMs = config.shutdownGraceMs) {
      stopping ??= (async () => {
        void server.stop(false);
        const deadline = Date.now() + graceMs;
        while (server.pendingRequests > 0 && Date.now() < deadline) await Bun.sleep(25);
        if (server.pendingRequests > 0) {
          logger.warn('shutdown grace period over; ending remaining streams and closing connections', {
            pending: server.pendingRequests,
            streams: services.chat.openStreams,
          });
          // Streams get an SSE error event and a clean end; a moment lets those bytes leave before the cut.
          services.chat.endStreams();
          const flushBy = Date.now() + 500;
          while (server.pendingRequests > 0 && Date.now() < flushBy) await Bun.sleep(10);
        }
        await server.stop(true);
        await services.lifecycle.shutdown();
        await database.close();
      })();
      return stopping;
    },
  };
}
