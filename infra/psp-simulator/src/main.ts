import { exitOnConfigError } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { loadPspSimulatorConfig } from './config';
import { doublingDelays } from './envio-notifier';
import { createPspSimulator } from './index';

async function main(): Promise<void> {
  const config = loadPspSimulatorConfig();
  const logger = createLogger('psp-simulator', config.LOG_LEVEL);
  const simulator = createPspSimulator({
    databaseUrl: config.PSP_SIMULATOR_DATABASE_URL,
    clientId: config.PSP_SIMULATOR_CLIENT_ID,
    clientSecret: config.PSP_SIMULATOR_CLIENT_SECRET,
    pixKey: config.PSP_SIMULATOR_PIX_KEY,
    pathPrefix: config.PSP_SIMULATOR_PATH_PREFIX,
    merchantName: config.PSP_SIMULATOR_MERCHANT_NAME,
    merchantCity: config.PSP_SIMULATOR_MERCHANT_CITY,
    envioCallbackDelaysMs: doublingDelays(config.PSP_SIMULATOR_ENVIO_CALLBACK_FIRST_RETRY_MS, 10),
    profile: config.PSP_SIMULATOR_PROFILE,
    profileValues: {
      developerAppKey: config.PSP_SIMULATOR_DEVELOPER_APP_KEY,
      accountNumber: config.PSP_SIMULATOR_ACCOUNT_NUMBER,
    },
    logger,
  });
  const running = await simulator.start(config.PSP_SIMULATOR_PORT, config.PSP_SIMULATOR_HOST);
  logger.info(
    { url: running.url, pixKey: config.PSP_SIMULATOR_PIX_KEY, clientId: config.PSP_SIMULATOR_CLIENT_ID },
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
