import type { DataSource } from 'typeorm';
import { PeriodicTask, type UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import type { Rails } from '../clients';
import { refundRequest } from '../domain/refund';
import { operatorReturnRequest } from '../domain/funds';
import { claimStaleOperatorReturns, claimStalePendingRefunds } from '../persistence';

const BATCH = 100;

export interface RefundResendOptions {
  afterSeconds: number;
  intervalMs: number;
  logger: Logger;
}

/**
 * Asks the rail again for every refund still pending `afterSeconds` after it was last asked, and for every operator's
 * return of held funds still in flight as long after: a request that never reached its rail (its queue not bound yet,
 * a message lost), or a rail's outcome lost on its way back, would otherwise hold its share of the payment (or the
 * held funds) for ever. Safe to repeat: each rail carries a refund or a return attempt out once per id, and answers
 * one that ended with its outcome again, which settles it here once.
 */
export function refundResend(
  dataSource: DataSource,
  uow: UnitOfWork,
  rails: Rails,
  options: RefundResendOptions,
) {
  const resent = counter(
    'payment_refund_requests_resent_total',
    'Refund requests (and operator returns of held funds) asked of their rail again',
  );
  const pass = async (): Promise<boolean> => {
    const { refunds, returns } = await uow.run({}, async (tx) => {
      const stale = await claimStalePendingRefunds(tx.manager, options.afterSeconds, BATCH);
      for (const refund of stale) {
        await tx.emit(
          rails.of(refund.method).refundRequested,
          refundRequest({ id: refund.refundId, ...refund }, refund.paymentAmountCentavos, refund.excess),
        );
      }
      const inFlight = await claimStaleOperatorReturns(tx.manager, options.afterSeconds, BATCH);
      for (const funds of inFlight)
        await tx.emit(
          rails.of(funds.rail).fundsReturnRequested,
          operatorReturnRequest(funds, funds.returnId!, funds.returnReason),
        );
      return { refunds: stale.length, returns: inFlight.length };
    });
    if (refunds + returns > 0) {
      resent.inc(refunds + returns);
      options.logger.warn(
        { refunds, returns },
        'pending refunds and operator returns asked of their rail again',
      );
    }
    return refunds === BATCH || returns === BATCH;
  };
  return new PeriodicTask(pass, {
    name: 'refund-resend',
    intervalMs: options.intervalMs,
    logger: options.logger,
  });
}
