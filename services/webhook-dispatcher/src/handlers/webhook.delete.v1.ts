import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { WebhookEntity } from '../persistence';
import { webhookNotFound } from './own-webhook';

/**
 * Deletes a webhook: it stops receiving at once, because its pending deliveries are cancelled in the same
 * transaction and the worker re-checks the webhook right before every send.
 */
export function handleDeleteWebhook(uow: UnitOfWork) {
  return async (
    command: { business_id: string; webhook_id: string },
    context: MessageContext,
  ): Promise<{ deleted: true }> =>
    uow.once(context, async (tx) => {
      const webhook = await tx.manager.findOne(WebhookEntity, {
        where: { id: command.webhook_id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!webhook || webhook.deletedAt !== null) throw webhookNotFound();
      if (webhook.businessId !== command.business_id) {
        throw new CommandError('FORBIDDEN', 'Este webhook pertence a outra empresa.');
      }
      await tx.manager.query(
        `UPDATE webhooks SET status = 'inactive', deleted_at = now(), updated_at = now() WHERE id = $1`,
        [webhook.id],
      );
      await tx.manager.query(
        `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = now()
          WHERE webhook_id = $1 AND status = 'pending'`,
        [webhook.id],
      );
      return { deleted: true as const };
    });
}
