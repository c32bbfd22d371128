import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { WEBHOOK_SECRET_OVERLAP_HOURS, type RotateWebhookSecret } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { openSecret, sealSecret } from '@gateway/persistence';
import { generateWebhookSecret } from '../domain/signature';
import { WebhookEntity } from '../persistence';
import { findOwnWebhook } from './own-webhook';

/**
 * Gives the webhook a new secret and keeps the replaced one signing for WEBHOOK_SECRET_OVERLAP_HOURS. The inbox keeps
 * only the webhook id, never a secret: a redelivered command opens the stored secret again (the same one, unless
 * another rotation came in between). A rotation during an overlap replaces the older secret at once.
 */
export function handleRotateWebhookSecret(uow: UnitOfWork, dataSource: DataSource, secretKey: Buffer) {
  return async (command: RotateWebhookSecret, context: MessageContext): Promise<{ secret: string }> => {
    const webhookId = await uow.once(context, async (tx) => {
      const webhook = await findOwnWebhook(tx.manager, command.business_id, command.webhook_id);
      await tx.manager.query(
        `UPDATE webhooks
            SET previous_secret_sealed = secret_sealed,
                previous_secret_until = now() + make_interval(hours => $3),
                secret_sealed = $2, updated_at = now()
          WHERE id = $1`,
        [
          webhook.id,
          sealSecret(generateWebhookSecret(randomBytes(32)), secretKey),
          WEBHOOK_SECRET_OVERLAP_HOURS,
        ],
      );
      return webhook.id;
    });
    const stored = await dataSource.manager.findOneByOrFail(WebhookEntity, { id: webhookId });
    return { secret: openSecret(stored.secretSealed, secretKey) };
  };
}
