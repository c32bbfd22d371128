import type { RefundSettled } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { settleRefund } from '../application/settle-refund';

/** The refund transfer was confirmed on chain, or failed: the refund settles with it, once. */
export function handleCryptoRefundSettled(uow: UnitOfWork) {
  return async (event: RefundSettled, context: MessageContext): Promise<void> =>
    settleRefund(uow, event, context);
}
