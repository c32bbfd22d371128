import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { deleteWebhook } from '../application/delete-webhook';

/** `webhook.delete.v1`: only the owning business may delete its webhook (another business's is FORBIDDEN). */
export function handleDeleteWebhook(uow: UnitOfWork) {
  return (
    command: { business_id: string; webhook_id: string },
    context: MessageContext,
  ): Promise<{ deleted: true }> => deleteWebhook(uow, command, context);
}
