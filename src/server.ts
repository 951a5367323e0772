// Starts one Conduit instance: database → migrations → services → HTTP; and stops it gracefully.
import type { Server } from 'bun';
import { createApp } from './app';
import type { Config } from './config';
import { openDatabase } from './db/client';
import { runMigrations } from './db/migrate';
import { clientAddressOf, limitKey, rememberClientAddress } from './http/client-address';
import { createConnectionGuard, tooManyConnectionsResponse } from './http/connection-guard';
import { createCors } from './http/cors';
import { AppError, isOpenAiPath, pathOf, renderError } from './http/errors';
import { decorateOpenAiResponse, withRequestId } from './gateway/openai-headers';
import { AUDIO_TRANSCRIPTIONS_PATH, bodyLimitFor } from './gateway/audio-limit';
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
  /** Share the port with the other workers (SO_REUSEPORT: the kernel spreads new connections over them). */
  reusePort?: boolean;
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
  const cors = createCors(config.corsOrigins);
  const guard = createConnectionGuard({
    receiveTimeoutMs: config.requestReceiveTimeoutMs,
    maxPerAddress: config.maxConnectionsPerAddress,
  });

  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    reusePort: options.reusePort ?? false,
    // While the app works on a request without a body (an upstream slow to list its models): Bun's 10 s
    // default would cut it. Each request's body and answer get their own timer from the guard.
    idleTimeout: 255,
    // Our own limit answers 413 in our error format; Bun's is only a backstop for bodies far past it
    // (the largest route limit: a transcription's audio may be bigger than BODY_LIMIT_BYTES).
    maxRequestBodySize: Math.max(limit, bodyLimitFor(AUDIO_TRANSCRIPTIONS_PATH, config)) * 2 + 1024 * 1024,
    async fetch(request) {
      const started = performance.now();
      const requestId = assignRequestId(request);
      const path = pathOf(request);
      rememberClientAddress(request, server.requestIP(request)?.address);
      const declared = request.headers.get('content-length');
      // Before anything awaits, so the timer is armed before Bun sees the body's last byte and disarms it.
      guard.whileReceiving(server, request, declared);
      // The same client as the other per-address limits: behind a trusted proxy, the address it reports.
      const addressKey = guard.counting ? limitKey(clientAddressOf(request, config.trustProxy)) : null;
      let response: Response;
      if (addressKey !== null && !guard.enter(addressKey)) {
        response = tooManyConnectionsResponse(request);
      } else {
        try {
          response =
            cors.preflight(request, path) ??
            (declared !== null && Number(declared) > bodyLimitFor(path, config) ? renderError(new AppError('payload_too_large'), path) : await app.handle(request));
        } catch (error) {
          logger.error('request crashed', { requestId, error });
          response = renderError(new AppError('internal_error'), path);
        } finally {
          if (addressKey !== null) guard.leave(addressKey);
        }
      }
      guard.afterAnswer(server, request, response);
      const openAi = isOpenAiPath(path);
      if (openAi || cors.applies(request, path)) {
        // These answers must carry their headers: a relayed fetch Response is copied to take them.
        response = withRequestId(response, requestId);
        if (openAi) decorateOpenAiResponse(request, response, started);
        cors.decorate(request, path, response);
      } else {
        try {
          response.headers.set('x-request-id', requestId);
        } catch {
          // Headers of a relayed fetch Response are immutable; the id is still in the log line.
        }
      }
      services.metrics.request(path, request.method, request.signal.aborted ? 499 : response.status);
      if (config.logRequests) {
        logger.info('request', {
          requestId,
          method: request.method,
          path,
          // nginx's 499 "client closed request" when nobody is left to receive the app's status (a slow
          // body cut at the receive deadline, a hang-up): the app's 500 for it would read as a failure.
          status: request.signal.aborted ? 499 : response.status,
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
