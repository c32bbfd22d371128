import { setTimeout as sleep } from 'node:timers/promises';
import { type Logger } from '@gateway/observability';
import { type Dispatcher, request } from 'undici';

/** About two minutes in all, like a PSP that gives up on a receiver that stays down. */
export const DEFAULT_CALLBACK_DELAYS_MS = [250, 500, 1000, 2000, 4000, 8000, 15000, 30000, 30000, 30000];
const ATTEMPT_TIMEOUT_MS = 5000;

/** POSTs `{"pix": [...]}` to `<webhookUrl>/pix`, retrying while the receiver fails, until stopped. */
export class CallbackSender {
  private readonly stopping = new AbortController();
  private ended = 0;

  /** `dispatcher` carries the bank's client certificate when it calls back over mutual TLS (Efí). */
  constructor(
    private readonly logger: Logger,
    private readonly retryDelaysMs: number[],
    private readonly dispatcher?: Dispatcher,
  ) {}

  /** Fire and forget: the payer's bank does not wait for the receiver's system. `pix` items are API Pix `Pix`. */
  dispatch(webhookUrl: string, pix: Array<Record<string, unknown>>): void {
    this.dispatchTo(webhookUrl, 'pix', { pix });
  }

  /**
   * Another of API Pix's callbacks (`{webhookUrl}/rec` with `{recs}`, `{webhookUrl}/cobr` with `{cobsr}`), sent as the
   * `pix` one is: fire and forget, the same retries and the same client certificate.
   */
  dispatchTo(webhookUrl: string, path: 'pix' | 'rec' | 'cobr', body: Record<string, unknown>): void {
    const url = `${webhookUrl.replace(/\/+$/, '')}/${path}`;
    void this.deliver(url, JSON.stringify(body));
  }

  /**
   * One attempt, no retry (its caller keeps its own schedule): whether the receiver accepted it (2xx). False also when
   * stopped.
   */
  async attemptOnce(webhookUrl: string, pix: Array<Record<string, unknown>>): Promise<boolean> {
    if (this.stopping.signal.aborted) return false;
    const url = `${webhookUrl.replace(/\/+$/, '')}/pix`;
    const outcome = await this.attempt(url, JSON.stringify({ pix }));
    if (outcome !== 'delivered') this.logger.warn({ url, outcome }, 'pix callback not accepted');
    return outcome === 'delivered';
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  stop(): void {
    this.stopping.abort();
    void this.dispatcher?.close();
  }

  /**
   * How many callbacks are done with: delivered, abandoned after the last retry, or cut short by `stop`. A run sends
   * nothing more once counted, so a test can wait for this before asserting how many attempts there were.
   */
  runsEnded(): number {
    return this.ended;
  }

  private async deliver(url: string, body: string): Promise<void> {
    try {
      await this.attemptUntilDone(url, body);
    } finally {
      this.ended += 1;
    }
  }

  private async attemptUntilDone(url: string, body: string): Promise<void> {
    for (let attempt = 0; attempt <= this.retryDelaysMs.length; attempt++) {
      if (attempt > 0) {
        const delay = this.retryDelaysMs[attempt - 1] ?? 0;
        const stopped = await sleep(delay, false, { signal: this.stopping.signal }).catch(() => true);
        if (stopped) return;
      }
      const outcome = await this.attempt(url, body);
      if (outcome === 'delivered') return;
      this.logger.warn({ url, attempt, outcome }, 'pix callback not accepted');
    }
    this.logger.error({ url }, 'pix callback abandoned after retries');
  }

  private async attempt(url: string, body: string): Promise<string> {
    try {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
        signal: AbortSignal.any([this.stopping.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      });
      await response.body.dump();
      return response.statusCode >= 200 && response.statusCode < 300
        ? 'delivered'
        : `HTTP ${response.statusCode}`;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}
