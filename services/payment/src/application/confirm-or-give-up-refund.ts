import type { DataSource } from 'typeorm';
import type { CheckRefundReservation } from '@gateway/contracts';
import { lockPayment, refundExistsOrGiveUp } from '../persistence';

/**
 * `refund.reservation.check.v1`, the ledger's question about a reservation no refund outcome has confirmed: whether
 * the refund exists. One that does not is given up in the same transaction, under the payment's lock that opening a
 * refund takes too, so it can never be opened afterwards and the ledger may release its money.
 */
export function confirmOrGiveUpRefund(
  dataSource: DataSource,
  command: CheckRefundReservation,
): Promise<{ refund_exists: boolean }> {
  return dataSource.transaction(async (manager) => {
    await lockPayment(manager, command.payment_id);
    return { refund_exists: await refundExistsOrGiveUp(manager, command.refund_id) };
  });
}
