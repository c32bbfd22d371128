import type { WebhookDelivery } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { retryDelivery } from '../application/retry-delivery';

/** `webhook.delivery.retry.v1`: the delivery, due again now, and its status. */
export function handleRetryWebhookDelivery(uow: UnitOfWork, onRescheduled: () => void) {
  return (
    command: { business_id: string; webhook_id: string; delivery_id: string },
    context: MessageContext,
  ): Promise<{ delivery_id: string; status: WebhookDelivery['status'] }> =>
    retryDelivery({ uow, onRescheduled }, command, context);
}
