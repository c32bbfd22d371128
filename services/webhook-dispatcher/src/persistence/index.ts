import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity, type DeliveryStatus } from './delivery.entity';
import { WebhookEntity, type WebhookStatus } from './webhook.entity';
import { Webhooks1732300006000 } from './migrations/1732300006000-webhooks';
import { WebhookPages1732400060000 } from './migrations/1732400060000-webhook-pages';
import { WebhookSecretRotation1732400090000 } from './migrations/1732400090000-webhook-secret-rotation';

export { DeliveryAttemptEntity, DeliveryEntity, WebhookEntity, type DeliveryStatus, type WebhookStatus };
export * from './webhook-store';

export const webhookDispatcherDatabase = {
  schema: 'webhook_dispatcher',
  entities: [WebhookEntity, DeliveryEntity, DeliveryAttemptEntity],
  migrations: [Webhooks1732300006000, WebhookPages1732400060000, WebhookSecretRotation1732400090000],
};
