import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { cancelPendingDeliveries, lockWebhook, markWebhookDeleted } from '../persistence';
import { webhookNotFound } from './shared/find-own-webhook';

/**
 * Deletes a webhook: it stops receiving at once, because its pending deliveries are cancelled in the same
 * transaction and the worker re-checks the webhook right before every send.
 */
export function deleteWebhook(
  uow: UnitOfWork,
  command: { business_id: string; webhook_id: string },
  context: MessageContext,
): Promise<{ deleted: true }> {
  return uow.once(context, async (tx) => {
    const webhook = await lockWebhook(tx.manager, command.webhook_id);
    if (!webhook || webhook.deletedAt !== null) throw webhookNotFound();
    if (webhook.businessId !== command.business_id) {
      throw new CommandError('FORBIDDEN', 'Este webhook pertence a outra empresa.');
    }
    await markWebhookDeleted(tx.manager, webhook.id);
    await cancelPendingDeliveries(tx.manager, webhook.id);
    return { deleted: true as const };
  });
}
