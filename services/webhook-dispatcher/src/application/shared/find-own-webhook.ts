import type { EntityManager } from 'typeorm';
import { CommandError } from '@gateway/messaging';
import { findWebhookOf, type WebhookEntity } from '../../persistence';

export function webhookNotFound(): CommandError {
  return new CommandError('NOT_FOUND', 'Webhook não encontrado.');
}

/**
 * The business's webhook, not deleted. Another business's webhook is NOT_FOUND, as on every read: existence never
 * leaks (only DELETE answers FORBIDDEN).
 */
export async function findOwnWebhook(
  manager: EntityManager,
  businessId: string,
  webhookId: string,
): Promise<WebhookEntity> {
  const webhook = await findWebhookOf(manager, businessId, webhookId);
  if (!webhook || webhook.deletedAt !== null) throw webhookNotFound();
  return webhook;
}
