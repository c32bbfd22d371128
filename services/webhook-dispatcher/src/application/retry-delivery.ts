import type { WebhookDelivery } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { makeDeliveryDueNow } from '../persistence';
import { findOwnWebhook } from './shared/find-own-webhook';

/**
 * Sends a delivery again as soon as the worker picks it up, whatever its status (a merchant may want a delivered
 * event again after fixing their side). One more failure with the schedule exhausted dead-letters it again.
 * `onRescheduled` runs once the delivery is due (the worker looks for it at once).
 */
export async function retryDelivery(
  deps: { uow: UnitOfWork; onRescheduled: () => void },
  command: { business_id: string; webhook_id: string; delivery_id: string },
  context: MessageContext,
): Promise<{ delivery_id: string; status: WebhookDelivery['status'] }> {
  const result = await deps.uow.once(context, async (tx) => {
    const webhook = await findOwnWebhook(tx.manager, command.business_id, command.webhook_id);
    if (webhook.status !== 'active') {
      throw new CommandError('INVALID_STATUS', 'Webhook inativo: não é possível reenviar a entrega.');
    }
    const delivery = await makeDeliveryDueNow(tx.manager, webhook.id, command.delivery_id);
    if (!delivery) throw new CommandError('NOT_FOUND', 'Entrega não encontrada.');
    return { delivery_id: delivery.id, status: delivery.status };
  });
  deps.onRescheduled();
  return result;
}
