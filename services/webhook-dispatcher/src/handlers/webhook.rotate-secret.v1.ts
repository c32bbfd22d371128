import type { RotateWebhookSecret } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import type { WebhookSecretDeps } from '../application/create-webhook';
import { rotateWebhookSecret } from '../application/rotate-webhook-secret';

/** `webhook.rotate-secret.v1`: the webhook's new secret. */
export function handleRotateWebhookSecret(deps: WebhookSecretDeps) {
  return async (command: RotateWebhookSecret, context: MessageContext): Promise<{ secret: string }> => ({
    secret: await rotateWebhookSecret(deps, command, context),
  });
}
