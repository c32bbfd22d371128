import type { ReceivedFundsItem, ReturnReceivedFunds } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { returnReceivedFunds } from '../application/return-received-funds';

/** Records kept money as returned by hand; a redelivered command answers what the first delivery did (inbox). */
export function handleReturnReceivedFunds(uow: UnitOfWork) {
  return async (command: ReturnReceivedFunds, context: MessageContext): Promise<ReceivedFundsItem> =>
    returnReceivedFunds(uow, command, context);
}
