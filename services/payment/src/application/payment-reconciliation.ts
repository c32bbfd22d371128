import type { DataSource } from 'typeorm';
import type { UnitOfWork } from '@gateway/messaging';
import { BatchTask, type BatchTaskOptions } from '@gateway/service-runtime';
import { counter } from '@gateway/observability';
import type { Rails } from '../clients';
import { claimPaymentsToReconcile, findPayment, type PaymentEntity } from '../persistence';
import { applyRailOutcome } from './record-rail-outcome';

const checks = counter(
  'payment_reconciliation_checks_total',
  'Open payments the reconciliation asked their rail about, by method and outcome',
  ['method', 'outcome'],
);

export interface PaymentReconciliationOptions extends BatchTaskOptions {
  /** Open payments older than this are checked, then again each time this long after their last check. */
  afterSeconds: number;
}

type DuePayment = Pick<PaymentEntity, 'id' | 'method'>;

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
    const due = await claimPaymentsToReconcile(
      this.dataSource.manager,
      this.options.afterSeconds,
      this.batchSize,
    );
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
    const payment = await findPayment(this.dataSource.manager, paymentId);
    if (payment) await this.reconcile(payment);
  }

  private async reconcile(payment: DuePayment): Promise<void> {
    const report = await this.rails.of(payment.method).report(payment.id);
    await this.uow.run({}, (tx) => applyRailOutcome(tx, report, this.options.logger));
    checks.inc({ method: payment.method, outcome: report.state });
  }
}
