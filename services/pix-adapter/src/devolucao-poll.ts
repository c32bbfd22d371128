import { BatchTask, type BatchTaskOptions } from '@gateway/messaging';
import { PixRefundEntity } from './persistence';
import { PspError } from './psp/psp-error';
import { followDevolucao, requestRefundDevolucao, type RefundDeps } from './refunds';

export interface OverdueDevolucaoPollOptions extends RefundDeps, BatchTaskOptions {
  /** A refund still open this long after its last change (and again each time as long after) is re-checked. */
  overdueSeconds: number;
}

/**
 * The PSP's callback that a devolução ended may never come: refunds still open past `overdueSeconds` are re-checked at
 * the PSP. A `processing` one is re-read (`GET /pix/{e2eid}/devolucao/{id}`) and settled as it says; a `requested` one
 * (its request parked, or its answer lost) is asked for again, which meets the same devolução. Each refund is claimed
 * until its next check in one statement (replicas share the work; no transaction waits on the PSP).
 */
export class OverdueDevolucaoPoll extends BatchTask {
  constructor(private readonly options: OverdueDevolucaoPollOptions) {
    super('pix-overdue-devolucao-poll', options);
  }

  /** Re-checks the overdue refunds once; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const { dataSource, logger, overdueSeconds } = this.options;
    const [due]: [Array<{ refund_id: string }>, number] = await dataSource.query(
      `UPDATE pix_refunds SET claimed_until = now() + $1 * interval '1 second'
        WHERE refund_id IN (SELECT refund_id FROM pix_refunds
                             WHERE status IN ('requested', 'processing')
                               AND updated_at <= now() - $1 * interval '1 second'
                               AND (claimed_until IS NULL OR claimed_until <= now())
                             ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING refund_id`,
      [overdueSeconds, this.batchSize],
    );
    for (const { refund_id: refundId } of due) {
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
