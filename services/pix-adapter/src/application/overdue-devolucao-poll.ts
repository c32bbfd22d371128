import { BatchTask, type BatchTaskOptions } from '@gateway/service-runtime';
import { PixRefundEntity } from '../persistence';
import { claimOverdueRefunds } from '../persistence/refund-store';
import { claimOverdueMeds } from '../persistence/med-store';
import { PspError } from '../clients/psp/psp-error';
import { requestRefundDevolucao } from './shared/request-refund-devolucao';
import { followDevolucao, type RefundDeps } from './shared/settle-pix-refund';
import { applyMedDevolucao, followMed, isMedDevolucao } from './shared/follow-med';
import { ChargeEntity } from '../persistence';
import { MED_SWEEP_EVERY_MS, MED_WINDOW_DAYS } from '../domain/med';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface OverdueDevolucaoPollOptions extends RefundDeps, BatchTaskOptions {
  /** A refund still open this long after its last change (and again each time as long after) is re-checked. */
  overdueSeconds: number;
}

/**
 * The PSP's callback that a devolução ended may never come: refunds still open past `overdueSeconds` are re-checked at
 * the PSP. A `processing` one is re-read (`GET /pix/{e2eid}/devolucao/{id}`) and settled as it says; a `requested` one
 * (its request parked, or its answer lost) is asked for again, which meets the same devolução. A MED devolução still in
 * processing past `overdueSeconds` is re-read too, so its end reaches the dispute when its callback is lost; and every
 * `MED_SWEEP_EVERY_MS` the Pix received in the MED window are listed at the PSP (`GET /pix`) for a MED whose first
 * callback was lost (`sweepMeds`). Each row is claimed until its next check in one statement (replicas share the work;
 * no transaction waits on the PSP).
 */
export class OverdueDevolucaoPoll extends BatchTask {
  constructor(private readonly options: OverdueDevolucaoPollOptions) {
    super('pix-overdue-devolucao-poll', options);
  }

  private nextSweepAt = 0;

  /** Re-checks the overdue refunds and MED devoluções once (and sweeps when due); returns how many were claimed. */
  async runOnce(): Promise<number> {
    const claimed = (await this.recheckRefunds()) + (await this.recheckMeds());
    if (Date.now() >= this.nextSweepAt) {
      this.nextSweepAt = Date.now() + MED_SWEEP_EVERY_MS;
      // Its failure (the PSP down, a list it cannot read) waits for the next sweep, never holding the re-checks up.
      await this.sweepMeds().catch((err: unknown) =>
        this.options.logger.warn({ err: String(err) }, 'the Pix of the MED window could not be listed now'),
      );
    }
    return claimed;
  }

  /**
   * Lists the Pix received in the MED window with their devoluções and applies every MED one on a charge of ours, as
   * its callback would have: one already known with the same status changes nothing. Answers how many were reported.
   */
  async sweepMeds(now = new Date()): Promise<number> {
    const { dataSource, psp } = this.options;
    const listed = await psp.listReceivedPix(new Date(now.getTime() - MED_WINDOW_DAYS * DAY_MS), now);
    let reported = 0;
    for (const pix of listed) {
      const meds = pix.devolucoes.filter(isMedDevolucao);
      if (meds.length === 0 || pix.txid === null) continue;
      const charge = await dataSource.manager.findOneBy(ChargeEntity, { txid: pix.txid });
      if (!charge) continue;
      for (const med of meds)
        if (
          await this.options.uow.run({}, (tx) => applyMedDevolucao(tx, charge.paymentId, pix.endToEndId, med))
        )
          reported += 1;
    }
    return reported;
  }

  private async recheckMeds(): Promise<number> {
    const { dataSource, logger, overdueSeconds } = this.options;
    const due = await claimOverdueMeds(dataSource.manager, overdueSeconds, this.batchSize);
    for (const med of due) {
      try {
        await followMed(this.options, med.payment_id, med.end_to_end_id, med.devolucao_id);
      } catch (err) {
        if (!(err instanceof PspError)) throw err;
        logger.warn(
          { devolucao_id: med.devolucao_id, err: String(err) },
          'PSP not reachable to re-check a MED',
        );
      }
    }
    return due.length;
  }

  private async recheckRefunds(): Promise<number> {
    const { dataSource, logger, overdueSeconds } = this.options;
    const due = await claimOverdueRefunds(dataSource.manager, overdueSeconds, this.batchSize);
    for (const refundId of due) {
      const refund = await dataSource.manager.findOneByOrFail(PixRefundEntity, { refundId });
      try {
        if (refund.status === 'requested') await requestRefundDevolucao(this.options, refund);
        else if (refund.status === 'processing') await followDevolucao(this.options, refund);
      } catch (err) {
        if (!(err instanceof PspError)) throw err;
        // Tried again once its claim lapses.
        logger.warn({ refund_id: refundId, err: String(err) }, 'PSP not reachable to re-check a devolução');
      }
    }
    return due.length;
  }
}
