import type { DataSource } from 'typeorm';
import { BatchTask, type BatchTaskOptions, type UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { OPEN_STATUSES } from '../domain/payment-status';
import type { Rails } from '../rails';
import { applyFundsReceived, applyRailClosure } from '../settlement/rail-outcomes';

const checks = counter(
  'payment_reconciliation_checks_total',
  'Open payments the reconciliation asked their rail about, by method and outcome',
  ['method', 'outcome'],
);

export interface PaymentReconciliationOptions extends BatchTaskOptions {
  /** Open payments older than this are checked, then again each time this long after their last check. */
  afterSeconds: number;
}

interface DuePayment {
  id: string;
  method: 'pix' | 'crypto';
}

/**
 * Asks each rail for the truth about payments still open past a threshold and applies what it finds through the
 * same functions as the rail's events (deduplicated by endToEndId, signature and the open -> final transition), so a
 * lost event (a parked message nobody re-drove, a PSP callback that never came) still ends the payment in the right
 * status with exactly one event. The rail is asked outside any transaction; each payment is claimed for a while
 * first, so replicas share the work and a payment is not asked about again before `afterSeconds`.
 */
export class PaymentReconciliation extends BatchTask {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly rails: Rails,
    private readonly options: PaymentReconciliationOptions,
  ) {
    super('payment-reconciliation', options);
  }

  /** One pass: claims the due payments and checks each; returns how many were claimed. */
  async runOnce(): Promise<number> {
    const due = await this.claimDue();
    for (const payment of due) {
      try {
        await this.reconcile(payment);
      } catch (err) {
        checks.inc({ method: payment.method, outcome: 'failed' });
        this.options.logger.warn({ payment_id: payment.id, err: String(err) }, 'reconciliation check failed');
      }
    }
    return due.length;
  }

  /** Asks the payment's rail now and applies its answer (whatever the payment's age or last check). */
  async reconcilePayment(paymentId: string): Promise<void> {
    const rows: DuePayment[] = await this.dataSource.query(`SELECT id, method FROM payments WHERE id = $1`, [
      paymentId,
    ]);
    if (rows[0]) await this.reconcile(rows[0]);
  }

  private async claimDue(): Promise<DuePayment[]> {
    const [claimed]: [DuePayment[], number] = await this.dataSource.query(
      `UPDATE payments SET reconcile_after = now() + $1 * interval '1 second'
        WHERE id IN (SELECT id FROM payments
                      WHERE status = ANY($2::text[]) AND created_at <= now() - $1 * interval '1 second'
                        AND (reconcile_after IS NULL OR reconcile_after <= now())
                      ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING id, method`,
      [this.options.afterSeconds, OPEN_STATUSES, this.batchSize],
    );
    return claimed;
  }

  private async reconcile(payment: DuePayment): Promise<void> {
    const { logger } = this.options;
    const report = await this.rails.of(payment.method).report(payment.id);
    await this.uow.run({}, async (tx) => {
      for (const funds of report.funds) await applyFundsReceived(tx, funds, logger);
      if (report.closure) await applyRailClosure(tx, report.closure, logger);
    });
    checks.inc({ method: payment.method, outcome: report.state });
  }
}
