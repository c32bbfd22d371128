import { randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_OVERLAP_HOURS } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { openSecret, sealSecret } from '@gateway/persistence';
import { generateWebhookSecret } from '../domain/signature';
import { getWebhook, replaceWebhookSecret } from '../persistence';
import type { WebhookSecretDeps } from './create-webhook';
import { findOwnWebhook } from './shared/find-own-webhook';

/**
 * Gives the webhook a new secret and keeps the replaced one signing for WEBHOOK_SECRET_OVERLAP_HOURS; resolves the new
 * secret. The inbox keeps only the webhook id, never a secret: a redelivered command opens the stored secret again
 * (the same one, unless another rotation came in between). A rotation during an overlap replaces the older secret at
 * once.
 */
export async function rotateWebhookSecret(
  deps: WebhookSecretDeps,
  command: { business_id: string; webhook_id: string },
  context: MessageContext,
): Promise<string> {
  const webhookId = await deps.uow.once(context, async (tx) => {
    const webhook = await findOwnWebhook(tx.manager, command.business_id, command.webhook_id);
    await replaceWebhookSecret(
      tx.manager,
      webhook.id,
      sealSecret(generateWebhookSecret(randomBytes(32)), deps.secretKey),
      WEBHOOK_SECRET_OVERLAP_HOURS,
    );
    return webhook.id;
  });
  const stored = await getWebhook(deps.dataSource.manager, webhookId);
  return openSecret(stored.secretSealed, deps.secretKey);
}
