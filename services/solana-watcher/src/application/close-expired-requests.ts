import { cryptoRequestClosed } from '@gateway/contracts';
import type { UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { expiryReason } from '../domain/settlement';
import { closeOpenRequest, lockDueRequests } from '../persistence';

const EXPIRY_BATCH = 100;

const requestsClosed = counter('solana_watcher_requests_closed_total', 'Transfer requests closed unpaid', [
  'reason',
]);

/**
 * Closes open requests whose window ended by `dueBy` (expired, or underpaid when they received a part) and reports
 * each closure; rows another transaction holds are left to the next pass.
 */
export async function closeExpiredRequests(uow: UnitOfWork, dueBy: Date, logger: Logger): Promise<void> {
  await uow.run({}, async (tx) => {
    const due = await lockDueRequests(tx.manager, dueBy, EXPIRY_BATCH);
    for (const request of due) {
      const reason = expiryReason(request.receivedBaseUnits);
      await closeOpenRequest(tx.manager, request.reference, reason);
      requestsClosed.inc({ reason });
      logger.info({ payment_id: request.paymentId, reference: request.reference, reason }, 'request closed');
      await tx.emit(
        cryptoRequestClosed,
        {
          payment_id: request.paymentId,
          reference: request.reference,
          reason,
          received_base_units: request.receivedBaseUnits.toString(),
        },
        { correlationId: request.correlationId },
      );
    }
  });
}
