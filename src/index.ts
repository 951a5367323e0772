// Process entry point: config → instance → signals; with WORKERS > 1, config → supervisor of the workers,
// each of which comes back here as a worker (CONDUIT_WORKER set) and runs one instance on the shared port.
import { ConfigError, loadConfig, relaunchEnvironment } from './config';
import { createLogger } from './logger';
import { superviseWorkers, type WorkerMessage } from './supervisor';

async function main() {
  let loaded;
  try {
    loaded = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Conduit cannot start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { config, warnings } = loaded;
  const worker = config.workerNumber;
  const supervising = worker === null && config.workers.count > 1;
  // Several processes write to one stdout: each line says whose it is.
  const logger = createLogger(config.logLevel, worker !== null ? { worker, pid: process.pid } : supervising ? { role: 'supervisor', pid: process.pid } : {});
  // Before a relaunch: the relaunched process finds the development secrets already written and says nothing.
  for (const warning of warnings) logger.warn(warning);
  // Bun's fetch holds 256 requests at once unless the process started with more: the 257th upstream
  // request would wait for someone else's answer to finish. Replace this process (same pid, so signals
  // and process managers are unaffected) with one that starts with the limit UPSTREAM_MAX_CONNECTIONS asks.
  const relaunch = relaunchEnvironment(config);
  if (relaunch && typeof process.execve === 'function') {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], relaunch);
  }
  // After the relaunch, so it is said once.
  if (config.workers.note) logger.warn(config.workers.note);
  if (config.runtimeMaxHttpRequests < config.upstreamMaxConnections) {
    logger.warn('the runtime allows fewer upstream requests at once than UPSTREAM_MAX_CONNECTIONS', {
      runtime: config.runtimeMaxHttpRequests,
      wanted: config.upstreamMaxConnections,
      fix: 'start with BUN_CONFIG_MAX_HTTP_REQUESTS set to UPSTREAM_MAX_CONNECTIONS',
    });
  }

  // Workers inherit the relaunched environment, so they start with the runtime limits at once.
  if (supervising) return superviseWorkers(config, logger);

  // Loaded here, not at the top: a supervisor never serves, and the whole app would hold ~60 MB in it.
  const { startInstance } = await import('./server');
  const instance = await startInstance(config, { logger, reusePort: worker !== null });
  let exiting = false;
  const shutdown = async (signal: string) => {
    if (exiting) return;
    exiting = true;
    logger.info('shutting down', { signal });
    try {
      await instance.stop();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error('shutdown failed', { error });
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  if (worker !== null) {
    // A supervisor that is gone (killed, crashed) closes this channel: no worker outlives it.
    process.on('disconnect', () => void shutdown('supervisor gone'));
    logger.info('worker listening', { port: instance.port, upstreamMaxConnections: Math.min(config.upstreamMaxConnections, config.runtimeMaxHttpRequests) });
    process.send?.({ type: 'listening', port: instance.port } satisfies WorkerMessage);
    return;
  }
  // Only now: a process manager that signals as soon as it reads this line must find the handlers in place.
  logger.info('listening', {
    url: `http://${config.host}:${instance.port}`,
    upstreamMaxConnections: Math.min(config.upstreamMaxConnections, config.runtimeMaxHttpRequests),
    database: config.databaseUrl ? 'postgres' : 'pglite',
    workers: 1,
    docs: `${config.publicBaseUrl}/docs`,
  });
}

main().catch((error) => {
  process.stderr.write(`Conduit failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
