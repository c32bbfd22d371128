import type { CreateRefund, RefundRecord } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import type { Rails } from '../rails';
import { openRefund } from '../refunds/refund-lifecycle';

/** Opens a refund; a redelivered command answers the refund it opened (inbox), never a second one. */
export function handleCreateRefund(uow: UnitOfWork, rails: Rails) {
  return async (command: CreateRefund, context: MessageContext): Promise<RefundRecord> =>
    uow.once(context, (tx) => openRefund(tx, rails, command));
}
