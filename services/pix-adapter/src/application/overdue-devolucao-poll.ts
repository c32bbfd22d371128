import { BatchTask, type BatchTaskOptions } from '@gateway/service-runtime';
import { PixRefundEntity } from '../persistence';
import { claimOverdueRefunds } from '../persistence/refund-store';
import { claimOverdueMeds } from '../persistence/med-store';
import { PspError } from '../clients/psp/psp-error';
import { requestRefundDevolucao } from './shared/request-refund-devolucao';
import { followDevolucao, type RefundDeps } from './shared/settle-pix-refund';
import { followMed } from './shared/follow-med';

export interface OverdueDevolucaoPollOptions extends RefundDeps, BatchTaskOptions {
  /** A refund still open this long after its last change (and again each time as long after) is re-checked. */
  overdueSeconds: number;
}

/**
 * The PSP's callback that a devolução ended may never come: refunds still open past `overdueSeconds` are re-checked at
 * the PSP. A `processing` one is re-read (`GET /pix/{e2eid}/devolucao/{id}`) and settled as it says; a `requested` one
 * (its request parked, or its answer lost) is asked for again, which meets the same devolução. A MED devolução still in
 * processing past `overdueSeconds` is re-read too, so its end reaches the dispute when its callback is lost (a MED
 * whose first callback was lost is found by the overdue-callback pass's sweep of the MED window). Each row is claimed
 * until its next check in one statement (replicas share the work; no transaction waits on the PSP).
 */
export class OverdueDevolucaoPoll extends BatchTask {
  constructor(private readonly options: OverdueDevolucaoPollOptions) {
    super('pix-overdue-devolucao-poll', options);
  }

  /** Re-checks the overdue refunds and MED devoluções once; returns how many were claimed. */
  async runOnce(): Promise<number> {
    return (await this.recheckRefunds()) + (await this.recheckMeds());
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
