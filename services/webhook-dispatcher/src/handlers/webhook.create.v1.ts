import type { CreateWebhook, Webhook } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { createWebhook, type WebhookSecretDeps } from '../application/create-webhook';
import { toWebhookRecord } from '../domain/webhook-record';

/** `webhook.create.v1`: the new webhook and its secret. */
export function handleCreateWebhook(deps: WebhookSecretDeps) {
  return async (command: CreateWebhook, context: MessageContext): Promise<Webhook & { secret: string }> => {
    const created = await createWebhook(deps, command, context);
    return { ...toWebhookRecord(created.webhook), secret: created.secret };
  };
}
