import type { RefundRequested } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { requestRefund } from '../application/request-refund';
import type { RefundDeps } from '../application/settle-refund';

export function handleRefundRequested(deps: RefundDeps) {
  return (event: RefundRequested, context: MessageContext): Promise<void> =>
    requestRefund(deps, event, context);
}
