import { exitOnConfigError } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { loadPspSimulatorConfig } from './config';
import { createPspSimulator } from './index';

async function main(): Promise<void> {
  const config = loadPspSimulatorConfig();
  const logger = createLogger('psp-simulator', config.LOG_LEVEL);
  const simulator = createPspSimulator({
    clientId: config.CLIENT_ID,
    clientSecret: config.CLIENT_SECRET,
    pixKey: config.PIX_KEY,
    pathPrefix: config.PATH_PREFIX,
    merchantName: config.MERCHANT_NAME,
    merchantCity: config.MERCHANT_CITY,
    logger,
  });
  const running = await simulator.start(config.PORT, config.HOST);
  logger.info(
    { url: running.url, pixKey: config.PIX_KEY, clientId: config.CLIENT_ID },
    'psp simulator ready',
  );
  const shutdown = (): void => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch(exitOnConfigError);
