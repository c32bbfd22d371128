import { exitOnConfigError } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { readConfig } from './config';
import { startLocalnet } from './index';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger('solana-localnet', config.logLevel);
  const localnet = await startLocalnet({ ...config, logger });
  logger.info({ mints: localnet.mints }, 'stablecoin mints created');
  const shutdown = (): void => void localnet.close().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch(exitOnConfigError);
