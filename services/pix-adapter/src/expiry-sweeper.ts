import { pixChargeClosed } from '@gateway/contracts';
import { PeriodicTask, type Transaction, type UnitOfWork } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import { pixAmountToCentavos } from './domain/amount';
import type { ApiPixClient } from './psp/api-pix-client';
import type { Cob } from './psp/cob';
import { PspError } from './psp/psp-error';
import { applyConfirmedPix, unpaidPixOf } from './received-pix';

export interface ExpirySweeperOptions {
  uow: UnitOfWork;
  psp: ApiPixClient;
  intervalMs: number;
  logger: Logger;
  /** Charges closed per sweep at most, so one sweep never holds the loop for long. */
  batchSize?: number;
}

/**
 * Closes charges whose window has passed. Each is claimed with FOR UPDATE SKIP LOCKED (replicas share the work) and
 * re-checked at the PSP first: a PIX found there is applied (or kept as late) before the charge closes as expired,
 * or as underpaid with every PIX it took that did not pay it.
 */
export class ExpirySweeper {
  private readonly task: PeriodicTask;

  constructor(private readonly options: ExpirySweeperOptions) {
    this.task = new PeriodicTask(async () => void (await this.sweepOnce()), {
      name: 'pix-expiry-sweeper',
      intervalMs: options.intervalMs,
      logger: options.logger,
    });
  }

  start(): void {
    this.task.start();
  }

  /** Sweep now rather than at the next interval. */
  nudge(): void {
    this.task.nudge();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Closes due charges until none is left or the batch is full; returns how many were closed. */
  async sweepOnce(): Promise<number> {
    const batchSize = this.options.batchSize ?? 20;
    let closed = 0;
    while (closed < batchSize && (await this.closeOneDue())) closed += 1;
    return closed;
  }

  private closeOneDue(): Promise<boolean> {
    return this.options.uow.run({}, async (tx) => {
      const due: Array<{ txid: string; payment_id: string }> = await tx.manager.query(
        `SELECT txid, payment_id FROM charges WHERE status = 'active' AND expires_at <= now()
          ORDER BY expires_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
      );
      const charge = due[0];
      if (!charge) return false;
      const cob = await this.fetchCob(charge.txid);
      if (cob === 'unavailable') return false;
      if (cob !== 'missing') await this.applyListedPix(tx, cob);
      const removed = cob !== 'missing' && cob.status.startsWith('REMOVIDA');
      const [, count]: [unknown[], number] = await tx.manager.query(
        `UPDATE charges SET status = $2, updated_at = now() WHERE txid = $1 AND status = 'active'`,
        [charge.txid, removed ? 'failed' : 'expired'],
      );
      if (count > 0) {
        const received = await unpaidPixOf(tx.manager, charge.txid);
        await tx.emit(pixChargeClosed, {
          payment_id: charge.payment_id,
          txid: charge.txid,
          reason: removed ? 'failed' : received.length > 0 ? 'underpaid' : 'expired',
          detail: removed ? cob.status : null,
          received_pix: received,
        });
      }
      return true;
    });
  }

  /** The cob as the PSP has it now; 'unavailable' ends this sweep (the PSP is down, the next one retries). */
  private async fetchCob(txid: string): Promise<Cob | 'missing' | 'unavailable'> {
    try {
      return await this.options.psp.getCharge(txid);
    } catch (err) {
      if (err instanceof PspError && err.kind === 'not_found') {
        this.options.logger.warn({ txid }, 'expired charge unknown at the PSP');
        return 'missing';
      }
      this.options.logger.warn({ txid, err: String(err) }, 'PSP not reachable for the expiry re-check');
      return 'unavailable';
    }
  }

  private async applyListedPix(tx: Transaction, cob: Cob): Promise<void> {
    for (const pix of cob.pix ?? []) {
      const confirmed = {
        endToEndId: pix.endToEndId,
        txid: cob.txid,
        valorCentavos: pixAmountToCentavos(pix.valor),
        horario: pix.horario,
      };
      await applyConfirmedPix(tx, confirmed, cob.status === 'CONCLUIDA', 'sweep', this.options.logger);
    }
  }
}
