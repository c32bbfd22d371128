import type { CreateRefund, RefundRecord } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { openRefund } from '../application/open-refund';
import type { Rails } from '../clients';

/** Opens a refund; a redelivered command answers the refund it opened (inbox), never a second one. */
export function handleCreateRefund(uow: UnitOfWork, rails: Rails) {
  return async (command: CreateRefund, context: MessageContext): Promise<RefundRecord> =>
    openRefund(uow, rails, command, context);
}
