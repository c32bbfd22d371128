import type { WebhookDelivery } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { findOwnWebhook } from './own-webhook';

/**
 * Sends a delivery again as soon as the worker picks it up, whatever its status (a merchant may want a delivered
 * event again after fixing their side). One more failure with the schedule exhausted dead-letters it again.
 */
export function handleRetryDelivery(uow: UnitOfWork, onRescheduled: () => void) {
  return async (
    command: { business_id: string; webhook_id: string; delivery_id: string },
    context: MessageContext,
  ): Promise<{ delivery_id: string; status: WebhookDelivery['status'] }> => {
    const result = await uow.once(context, async (tx) => {
      const webhook = await findOwnWebhook(tx.manager, command.business_id, command.webhook_id);
      if (webhook.status !== 'active') {
        throw new CommandError('INVALID_STATUS', 'Webhook inativo: não é possível reenviar a entrega.');
      }
      // An attempt in flight keeps its lease: the retry becomes due right after it, never alongside it.
      const [rows] = (await tx.manager.query(
        `UPDATE deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now()
          WHERE id = $1 AND webhook_id = $2 AND status <> 'cancelled'
          RETURNING id, status`,
        [command.delivery_id, webhook.id],
      )) as [Array<{ id: string; status: WebhookDelivery['status'] }>, number];
      const row = rows[0];
      if (!row) throw new CommandError('NOT_FOUND', 'Entrega não encontrada.');
      return { delivery_id: row.id, status: row.status };
    });
    onRescheduled();
    return result;
  };
}
