import type { Logger } from '@gateway/observability';
import type { ApiPixClient } from '../clients/psp/api-pix-client';
import { maskPixKey } from '../domain/pix-key';

const RETRY_MS = 5000;

/**
 * Registers the callback URL for the Pix key at the PSP (`PUT /webhook/{chave}`). The first attempt is awaited so
 * callbacks work as soon as the service is up; if the PSP is down it keeps trying in the background until stopped.
 */
export function registerPspWebhook(
  psp: ApiPixClient,
  chave: string,
  callbackUrl: string,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  return keepRegistering(
    () => psp.registerWebhook(chave, callbackUrl),
    () => logger.info({ chave: maskPixKey(chave) }, 'PIX callback URL registered at the PSP'),
    (err) =>
      logger.error({ err: String(err), retryInMs: RETRY_MS }, 'PIX callback URL not registered, retrying'),
  );
}

/**
 * Registers Pix Automático's callback URLs (`PUT /webhookrec`, `PUT /webhookcobr`) as `registerPspWebhook` does the
 * Pix one: the first attempt awaited, then in the background until it succeeds or is stopped.
 */
export function registerRecurrenceWebhooks(
  psp: ApiPixClient,
  recUrl: string,
  cobrUrl: string,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  return keepRegistering(
    () => psp.registerRecurrenceWebhooks(recUrl, cobrUrl),
    () => logger.info('Pix Automático callback URLs registered at the PSP'),
    (err) =>
      logger.error(
        { err: String(err), retryInMs: RETRY_MS },
        'Pix Automático callback URLs not registered, retrying',
      ),
  );
}

async function keepRegistering(
  register: () => Promise<void>,
  done: () => void,
  failed: (err: unknown) => void,
): Promise<{ stop(): Promise<void> }> {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const attempt = async (): Promise<void> => {
    try {
      await register();
      done();
    } catch (err) {
      failed(err);
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
