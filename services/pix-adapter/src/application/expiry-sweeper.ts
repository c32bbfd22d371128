import { pixChargeClosed } from '@gateway/contracts';
import { PeriodicWorker, type UnitOfWork } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import type { DataSource } from 'typeorm';
import { readCob } from '../clients/psp/read-cob';
import type { ChargePsp } from '../clients/psp/psp-accounts';
import { closureReason } from '../domain/received-pix';
import { claimDueCharge, endActiveCharge, releaseChargeClaim } from '../persistence/charge-store';
import { unpaidPixOf } from '../persistence/received-pix-store';
import { applyListedPix } from './shared/record-received-pix';

export interface ExpirySweeperOptions {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ChargePsp;
  intervalMs: number;
  logger: Logger;
  /** Charges closed per sweep at most, so one sweep never holds the loop for long. */
  batchSize?: number;
  /** How long a claimed charge is left to its sweeper: past it (the sweeper died or hung) another takes it. */
  claimMs?: number;
}

/**
 * Closes charges whose window has passed. Each is claimed for a while (`claimed_until`: replicas share the work, and
 * no transaction stays open while the PSP answers), then re-checked at the PSP: a PIX found there is applied (or kept
 * as late) before the charge closes as expired, or as underpaid with every PIX it took that did not pay it, in one
 * short transaction that changes only a charge still active.
 */
export class ExpirySweeper extends PeriodicWorker {
  constructor(private readonly options: ExpirySweeperOptions) {
    super({ name: 'pix-expiry-sweeper', intervalMs: options.intervalMs, logger: options.logger });
  }

  /** Closes due charges until none is left or the batch is full; returns how many were closed. */
  async sweepOnce(): Promise<number> {
    const batchSize = this.options.batchSize ?? 20;
    let closed = 0;
    while (closed < batchSize && (await this.closeOneDue())) closed += 1;
    return closed;
  }

  /** One sweep; a full batch still waits for the next interval (or a nudge). */
  protected override async pass(): Promise<void> {
    await this.sweepOnce();
  }

  private async closeOneDue(): Promise<boolean> {
    const { dataSource, uow, psp, logger } = this.options;
    const charge = await claimDueCharge(dataSource.manager, this.options.claimMs ?? 60_000);
    if (!charge) return false;
    const cob = await readCob(psp, charge.txid, logger);
    if (cob === 'unavailable') {
      // The PSP is down: this sweep ends and the next one tries the charge again.
      await releaseChargeClaim(dataSource.manager, charge.txid);
      return false;
    }
    await uow.run({}, async (tx) => {
      if (cob !== 'missing') await applyListedPix(tx, cob, 'sweep', logger);
      // A removed cob is announced whoever removed it: the payment service ignores the closure of a payment already
      // cancelled, and one removed outside the gateway (at the PSP's console) must not stay open until reconciliation.
      const removed = cob !== 'missing' && cob.status.startsWith('REMOVIDA');
      const count = await endActiveCharge(tx.manager, charge.txid, removed ? 'failed' : 'expired');
      if (count === 0) return;
      const received = await unpaidPixOf(tx.manager, charge.txid);
      await tx.emit(pixChargeClosed, {
        payment_id: charge.payment_id,
        txid: charge.txid,
        reason: closureReason(removed, received.length),
        detail: removed ? cob.status : null,
        received_pix: received,
      });
    });
    return true;
  }
}
