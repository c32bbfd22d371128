import type { RefundRequested } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import type { RefundDesk } from '../application/send-refund';

/** The payment service asks for a crypto refund: carried out on chain by the refund desk (see RefundDesk). */
export function handleCryptoRefundRequested(desk: Pick<RefundDesk, 'carryOut'>) {
  return (event: RefundRequested, context: MessageContext): Promise<void> => desk.carryOut(event, context);
}
