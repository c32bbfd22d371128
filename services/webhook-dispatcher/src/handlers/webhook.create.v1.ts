import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { newPublicId, type CreateWebhook, type Webhook } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { checkWebhookInput } from '../domain/webhook-input';
import { openSecret, sealSecret } from '@gateway/persistence';
import { generateWebhookSecret } from '../domain/signature';
import { toWebhookRecord } from '../domain/webhook-record';
import { WebhookEntity } from '../persistence';

/**
 * Registers a webhook with a fresh `whsec_` secret, stored sealed. The inbox keeps only the id, never the secret: a
 * redelivered command opens the stored secret again and returns the same webhook and secret.
 */
export function handleCreateWebhook(uow: UnitOfWork, dataSource: DataSource, secretKey: Buffer) {
  return async (command: CreateWebhook, context: MessageContext): Promise<Webhook & { secret: string }> => {
    const input = checkWebhookInput(command);
    if (!input.ok) {
      throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${input.invalidFields.join(', ')}.`);
    }
    const webhookId = await uow.once(context, async (tx) => {
      const now = new Date();
      const entity = tx.manager.create(WebhookEntity, {
        id: newPublicId('wh'),
        businessId: command.business_id,
        url: input.value.url,
        events: input.value.events,
        status: 'active',
        secretSealed: sealSecret(generateWebhookSecret(randomBytes(32)), secretKey),
        createdAt: now,
        updatedAt: now,
        deletedAt: null,
      });
      await tx.manager.insert(WebhookEntity, entity);
      return entity.id;
    });
    const stored = await dataSource.manager.findOneByOrFail(WebhookEntity, { id: webhookId });
    return { ...toWebhookRecord(stored), secret: openSecret(stored.secretSealed, secretKey) };
  };
}
