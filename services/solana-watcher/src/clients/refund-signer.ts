import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '@gateway/config';
import type { Logger } from '@gateway/observability';
import type { SolanaWatcherConfig } from '../config';
import { decodeBase58 } from '../domain/base58';
import type { TransactionSigner } from '../domain/transaction-signer';
import { EnvironmentKeySigner } from './environment-key-signer';
import { readKeypairFile } from './keypair-file';
import { VaultRefused, VaultTransitSigner, VaultUnavailable } from './vault-transit-signer';

/** How long start waits between reads of Vault's key while Vault cannot be reached (doubling up to the cap). */
export interface StartRetry {
  firstDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_START_RETRY: StartRetry = { firstDelayMs: 500, maxDelayMs: 30_000 };

/**
 * The signer REFUND_SIGNER chose, ready to sign for RECEIVING_WALLET (the config checked the environment's key and
 * the keypair file already). Vault's key is read here: while Vault cannot be reached start waits, backing off, and
 * the service is not ready; a refusal (403: the token; 404: the mount or key), a key that cannot sign or one of
 * another wallet is a ConfigError: the process exits naming what to fix.
 */
export async function openRefundSigner(
  config: SolanaWatcherConfig,
  logger: Logger,
  retry: StartRetry = DEFAULT_START_RETRY,
): Promise<TransactionSigner> {
  if (config.REFUND_SIGNER === 'env')
    return new EnvironmentKeySigner(decodeBase58(config.REFUND_SIGNER_SECRET_KEY!)!);
  if (config.REFUND_SIGNER === 'keypair-file')
    return new EnvironmentKeySigner(readKeypairFile(config.REFUND_SIGNER_KEYPAIR_FILE!));
  const settings = {
    address: config.VAULT_ADDR!,
    token: config.VAULT_TOKEN!,
    namespace: config.VAULT_NAMESPACE,
    mount: config.VAULT_TRANSIT_MOUNT,
    key: config.VAULT_TRANSIT_KEY!,
  };
  for (let attempt = 0; ; attempt++) {
    let signer: VaultTransitSigner;
    try {
      signer = await VaultTransitSigner.open(settings);
    } catch (err) {
      if (err instanceof VaultRefused)
        throw new ConfigError(err.status === 403 ? ['VAULT_TOKEN'] : ['VAULT_TRANSIT_KEY'], err.message);
      if (!(err instanceof VaultUnavailable)) throw err;
      const delayMs = Math.min(retry.maxDelayMs, retry.firstDelayMs * 2 ** attempt);
      logger.warn({ err: err.message, delayMs }, 'refund signer: Vault unavailable at start, trying again');
      await sleep(delayMs);
      continue;
    }
    if (signer.publicKey !== config.RECEIVING_WALLET)
      throw new ConfigError(
        ['VAULT_TRANSIT_KEY'],
        `"VAULT_TRANSIT_KEY" (${settings.key}) is not the key of RECEIVING_WALLET (its public key is ${signer.publicKey})`,
      );
    logger.info({ signer }, 'refund signer: Vault Transit key read');
    return signer;
  }
}
