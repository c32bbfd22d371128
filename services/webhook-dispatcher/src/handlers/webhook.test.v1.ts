import { newPublicId } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { openSecret } from '@gateway/persistence';
import type { EndpointLimiter } from '../delivery/endpoint-limiter';
import type { WebhookSender } from '../delivery/http-sender';
import { serializeDeliveryBody, signedDeliveryHeaders } from '../delivery/payload';
import { findOwnWebhook } from './own-webhook';

export interface TestSendDependencies {
  sender: WebhookSender;
  limiter: EndpointLimiter;
  secretKey: Buffer;
}

/**
 * Sends one signed `webhook.test` event now, outside the retry schedule, and answers with what the endpoint said.
 * Inside the inbox transaction, so a redelivered command answers the first result without sending again.
 */
export function handleTestWebhook(uow: UnitOfWork, deps: TestSendDependencies) {
  return async (
    command: { business_id: string; webhook_id: string },
    context: MessageContext,
  ): Promise<{ event_id: string; status_code: number | null; error: string | null }> =>
    uow.once(context, async (tx) => {
      const webhook = await findOwnWebhook(tx.manager, command.business_id, command.webhook_id);
      const now = new Date();
      const eventId = newPublicId('evt');
      const body = serializeDeliveryBody({
        id: eventId,
        type: 'webhook.test',
        createdAt: now.toISOString(),
        businessId: webhook.businessId,
        data: { webhook_id: webhook.id },
      });
      const headers = signedDeliveryHeaders({
        body,
        eventId,
        timestampSeconds: Math.floor(now.getTime() / 1000),
        secret: openSecret(webhook.secretSealed, deps.secretKey),
      });
      const result = await deps.limiter.run(webhook.url, () =>
        deps.sender.send({ url: webhook.url, headers, body }),
      );
      return result.kind === 'response'
        ? { event_id: eventId, status_code: result.status, error: null }
        : { event_id: eventId, status_code: null, error: `${result.error}: ${result.message}` };
    });
}
