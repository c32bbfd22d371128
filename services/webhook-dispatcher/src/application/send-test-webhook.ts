import type { DataSource } from 'typeorm';
import { newPublicId } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { openSecret } from '@gateway/persistence';
import type { EndpointLimiter } from '../clients/endpoint-limiter';
import type { WebhookSender } from '../clients/http-sender';
import { serializeDeliveryBody, signedDeliveryHeaders } from '../domain/payload';
import { findOwnWebhook } from './shared/find-own-webhook';

export interface TestSendResult {
  event_id: string;
  status_code: number | null;
  error: string | null;
}

export interface TestSendDependencies {
  dataSource: DataSource;
  uow: UnitOfWork;
  sender: WebhookSender;
  limiter: EndpointLimiter;
  secretKey: Buffer;
}

/**
 * Sends one signed `webhook.test` event now, outside the retry schedule, and answers with what the endpoint said.
 * The endpoint is called outside any transaction (it may take its whole timeout); the answer is then recorded in the
 * inbox, so a redelivered command answers the first result without sending again.
 */
export async function sendTestWebhook(
  deps: TestSendDependencies,
  command: { business_id: string; webhook_id: string },
  context: MessageContext,
): Promise<TestSendResult> {
  const stored = await deps.uow.storedResult<TestSendResult>(context);
  if (stored) return stored.value;
  const webhook = await findOwnWebhook(deps.dataSource.manager, command.business_id, command.webhook_id);
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
    previousSecret:
      webhook.previousSecretSealed !== null &&
      webhook.previousSecretUntil !== null &&
      webhook.previousSecretUntil > now
        ? openSecret(webhook.previousSecretSealed, deps.secretKey)
        : null,
  });
  const result = await deps.limiter.run(webhook.url, () =>
    deps.sender.send({ url: webhook.url, headers, body }),
  );
  const answer: TestSendResult =
    result.kind === 'response'
      ? { event_id: eventId, status_code: result.status, error: null }
      : { event_id: eventId, status_code: null, error: `${result.error}: ${result.message}` };
  return deps.uow.once(context, async () => answer);
}
