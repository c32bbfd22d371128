import { cryptoRequestClosed } from '@gateway/contracts';
import type { UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { expiryReason } from '../domain/settlement';
import { closeOpenRequest, lockDueRequests } from '../persistence';

const EXPIRY_BATCH = 100;
/**
 * How long past its window a request waits for an unread transaction that landed within the window (and names its
 * reference): long enough to deploy a watcher that reads a new transaction version while SolanaTransactionsUnread
 * fires, short enough that a transaction never read does not hold a payment open for ever. Past it the request
 * closes, and the transaction, once read, is recorded as late money like any other.
 */
export const UNREAD_EXPIRY_HOLD_MS = 24 * 60 * 60 * 1000;

const requestsClosed = counter('solana_watcher_requests_closed_total', 'Transfer requests closed unpaid', [
  'reason',
]);

/**
 * Closes open requests whose window ended by `dueBy` (expired, or underpaid when they received a part) and reports
 * each closure; rows another transaction holds are left to the next pass, and so are requests an unread transaction
 * may still pay (up to UNREAD_EXPIRY_HOLD_MS past their window).
 */
export async function closeExpiredRequests(uow: UnitOfWork, dueBy: Date, logger: Logger): Promise<void> {
  await uow.run({}, async (tx) => {
    const due = await lockDueRequests(
      tx.manager,
      dueBy,
      new Date(dueBy.getTime() - UNREAD_EXPIRY_HOLD_MS),
      EXPIRY_BATCH,
    );
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
