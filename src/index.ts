// Process entry point: config → instance → signals.
import { ConfigError, loadConfig } from './config';
import { createLogger } from './logger';
import { startInstance } from './server';

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
  const logger = createLogger(config.logLevel);
  for (const warning of warnings) logger.warn(warning);

  const instance = await startInstance(config, { logger });
  logger.info('listening', {
    url: `http://${config.host}:${instance.port}`,
    database: config.databaseUrl ? 'postgres' : 'pglite',
    docs: `${config.publicBaseUrl}/docs`,
  });

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
}

main().catch((error) => {
  process.stderr.write(`Conduit failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
