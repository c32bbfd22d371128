import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { newPublicId } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { openSecret, sealSecret } from '@gateway/persistence';
import { generateWebhookSecret } from '../domain/signature';
import { checkWebhookInput } from '../domain/webhook-input';
import { getWebhook, insertWebhook, type WebhookEntity } from '../persistence';

export interface WebhookSecretDeps {
  uow: UnitOfWork;
  dataSource: DataSource;
  /** Seals and opens the webhook secrets. */
  secretKey: Buffer;
}

/**
 * Registers a webhook with a fresh `whsec_` secret, stored sealed. The inbox keeps only the id, never the secret: a
 * redelivered command opens the stored secret again and returns the same webhook and secret.
 */
export async function createWebhook(
  deps: WebhookSecretDeps,
  command: { business_id: string; url: string; events: readonly string[] },
  context: MessageContext,
): Promise<{ webhook: WebhookEntity; secret: string }> {
  const input = checkWebhookInput(command);
  if (!input.ok) {
    throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${input.invalidFields.join(', ')}.`);
  }
  const webhookId = await deps.uow.once(context, async (tx) => {
    const now = new Date();
    const id = newPublicId('wh');
    await insertWebhook(tx.manager, {
      id,
      businessId: command.business_id,
      url: input.value.url,
      events: input.value.events,
      status: 'active',
      secretSealed: sealSecret(generateWebhookSecret(randomBytes(32)), deps.secretKey),
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    return id;
  });
  const stored = await getWebhook(deps.dataSource.manager, webhookId);
  return { webhook: stored, secret: openSecret(stored.secretSealed, deps.secretKey) };
}
