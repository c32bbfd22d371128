import type { DataSource } from 'typeorm';
import { PeriodicTask, type UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import type { Rails } from '../clients';
import { refundRequest } from '../domain/refund';
import { claimStalePendingRefunds } from '../persistence';

const BATCH = 100;

export interface RefundResendOptions {
  afterSeconds: number;
  intervalMs: number;
  logger: Logger;
}

/**
 * Asks the rail again for every refund still pending `afterSeconds` after it was last asked: a request that never
 * reached its rail (its queue not bound yet, a message lost) would otherwise hold its share of the payment for ever.
 * Safe to repeat: each rail carries a refund out once per refund id, and answers a settled one with its outcome.
 */
export function refundResend(
  dataSource: DataSource,
  uow: UnitOfWork,
  rails: Rails,
  options: RefundResendOptions,
) {
  const resent = counter('payment_refund_requests_resent_total', 'Refund requests asked of their rail again');
  const pass = async (): Promise<boolean> => {
    const count = await uow.run({}, async (tx) => {
      const stale = await claimStalePendingRefunds(tx.manager, options.afterSeconds, BATCH);
      for (const refund of stale) {
        await tx.emit(
          rails.of(refund.method).refundRequested,
          refundRequest({ id: refund.refundId, ...refund }, refund.paymentAmountCentavos, refund.excess),
        );
      }
      return stale.length;
    });
    if (count > 0) {
      resent.inc(count);
      options.logger.warn({ refunds: count }, 'pending refunds asked of their rail again');
    }
    return count === BATCH;
  };
  return new PeriodicTask(pass, {
    name: 'refund-resend',
    intervalMs: options.intervalMs,
    logger: options.logger,
  });
}
