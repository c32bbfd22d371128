import type { RefundSettled } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { settleRefund } from '../application/settle-refund';

/** The PSP's devolução reached DEVOLVIDO or NAO_REALIZADO: the refund settles with it, once. */
export function handlePixRefundSettled(uow: UnitOfWork) {
  return async (event: RefundSettled, context: MessageContext): Promise<void> =>
    settleRefund(uow, event, context);
}
