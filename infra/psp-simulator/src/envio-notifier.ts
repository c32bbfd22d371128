import { setTimeout as sleep } from 'node:timers/promises';
import { type Logger } from '@gateway/observability';
import { type CallbackSender } from './callback-sender';
import { type EnvioStore, type StoredEnvio } from './envio-store';

/** `count` waits doubling from `firstMs`: a PSP's retry schedule, scaled to what a run can wait. */
export function doublingDelays(firstMs: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => firstMs * 2 ** i);
}

/**
 * Ten retries doubling from 1 s (about 17 minutes in all). Efí makes up to 10 new attempts of a callback its receiver
 * did not answer 2xx, the first 5 minutes after the failure and the next at ever longer intervals
 * (https://dev.efipay.com.br/docs/api-pix/webhooks/, "Recebendo Callbacks"); the simulator keeps the count on a
 * shorter clock, which `envioCallbackDelaysMs` sets.
 */
export const DEFAULT_ENVIO_CALLBACK_DELAYS_MS = doublingDelays(1000, 10);

/**
 * The callbacks of settled envios, kept in the books until the payer key's webhook accepts one (an outbox): each
 * attempt is recorded, so a restart goes on with the owed ones where their schedule stopped, and an accepted callback
 * is never sent again. After the last retry the callback is given up (logged), as a PSP does.
 */
export class EnvioNotifier {
  private readonly running = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly envios: EnvioStore,
    private readonly webhookOf: (chave: string) => Promise<{ webhookUrl: string } | undefined>,
    private readonly sender: CallbackSender,
    private readonly delaysMs: number[],
    private readonly callbackOf: (envio: StoredEnvio) => Record<string, unknown>,
    private readonly logger: Logger,
    /** The simulator's clock, which dates each attempt in the books. */
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Starts telling the webhook of a settled envio (nothing when it is told already or being told). */
  notify(idEnvio: string): void {
    if (this.stopping.signal.aborted || this.running.has(idEnvio)) return;
    const run = this.deliver(idEnvio)
      .catch((error: unknown) => {
        if (!this.stopping.signal.aborted)
          this.logger.error({ err: error, idEnvio }, 'envio callback failed');
      })
      .finally(() => this.running.delete(idEnvio));
    this.running.set(idEnvio, run);
  }

  /** Picks up the callbacks still owed for the account of `chave` (at start). */
  async resume(chave: string): Promise<void> {
    for (const idEnvio of await this.envios.callbacksOwed(chave)) this.notify(idEnvio);
  }

  /** Stops trying (what is owed stays owed in the books) and waits for the runs to end. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.running.values());
  }

  private async deliver(idEnvio: string): Promise<void> {
    for (;;) {
      const envio = await this.envios.byIdEnvio(idEnvio);
      if (envio === undefined || envio.status === 'EM_PROCESSAMENTO' || envio.notifiedAt !== undefined)
        return;
      if (envio.callbackAttempts > this.delaysMs.length) {
        this.logger.error(
          { idEnvio, attempts: envio.callbackAttempts },
          'envio callback given up after retries',
        );
        return;
      }
      if (envio.callbackAttempts > 0) {
        const delay = this.delaysMs[envio.callbackAttempts - 1] ?? 0;
        const stopped = await sleep(delay, false, { signal: this.stopping.signal }).catch(() => true);
        if (stopped) return;
      }
      const webhook = await this.webhookOf(envio.pagadorChave);
      const accepted =
        webhook !== undefined &&
        (await this.sender.attemptOnce(webhook.webhookUrl, [this.callbackOf(envio)]));
      // An attempt cut short by a stop is no attempt; one the webhook accepted is recorded whatever came since (the
      // stop waits for it), or the next start would tell it again.
      if (!accepted && (this.stopping.signal.aborted || this.sender.stopped)) return;
      await this.envios.recordCallbackAttempt(idEnvio, accepted, this.now());
      if (accepted) return;
    }
  }
}
