import type { Logger } from '@gateway/observability';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import { maskPixKey } from '../domain/pix-key';

const RETRY_MS = 5000;

/**
 * Registers the callback URL for the Pix key at the PSP (`PUT /webhook/{chave}`). The first attempt is awaited so
 * callbacks work as soon as the service is up; if the PSP is down it keeps trying in the background until stopped.
 */
export async function registerPspWebhook(
  psp: ApiPixClient,
  chave: string,
  callbackUrl: string,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const attempt = async (): Promise<void> => {
    try {
      await psp.registerWebhook(chave, callbackUrl);
      logger.info({ chave: maskPixKey(chave) }, 'PIX callback URL registered at the PSP');
    } catch (err) {
      logger.error({ err: String(err), retryInMs: RETRY_MS }, 'PIX callback URL not registered, retrying');
      if (!stopped) timer = setTimeout(() => void attempt(), RETRY_MS);
    }
  };
  await attempt();
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
