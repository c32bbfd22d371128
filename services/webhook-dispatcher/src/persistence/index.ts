import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity, type DeliveryStatus } from './delivery.entity';
import { WebhookEntity, type WebhookStatus } from './webhook.entity';
import { Webhooks1732300006000 } from './migrations/1732300006000-webhooks';

export { DeliveryAttemptEntity, DeliveryEntity, WebhookEntity, type DeliveryStatus, type WebhookStatus };

export const webhookDispatcherDatabase = {
  schema: 'webhook_dispatcher',
  entities: [WebhookEntity, DeliveryEntity, DeliveryAttemptEntity],
  migrations: [Webhooks1732300006000],
};
