import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity, type DeliveryStatus } from './delivery.entity';
import { WebhookEntity, type WebhookStatus } from './webhook.entity';
import { EventEntity } from './event.entity';
import { EventLogCursorEntity } from './event-log-cursor.entity';
import { Webhooks1732300006000 } from './migrations/1732300006000-webhooks';
import { WebhookPages1732400060000 } from './migrations/1732400060000-webhook-pages';
import { WebhookSecretRotation1732400090000 } from './migrations/1732400090000-webhook-secret-rotation';
import { Events1732400130000 } from './migrations/1732400130000-events';
import { DeliveryTraceContext1732400173000 } from './migrations/1732400173000-delivery-trace-context';
import { EventsByPayment1764402100000 } from './migrations/1764402100000-events-by-payment';
import { EventLogCursors1764403100000 } from './migrations/1764403100000-event-log-cursors';
import { EventLogCaughtUp1764403200100 } from './migrations/1764403200100-event-log-caught-up';

export {
  DeliveryAttemptEntity,
  DeliveryEntity,
  EventEntity,
  EventLogCursorEntity,
  WebhookEntity,
  type DeliveryStatus,
  type WebhookStatus,
};
export * from './webhook-store';
export * from './event-store';
export * from './delivery-store';
export * from './event-log-cursor-store';

export const webhookDispatcherDatabase = {
  schema: 'webhook_dispatcher',
  entities: [WebhookEntity, DeliveryEntity, DeliveryAttemptEntity, EventEntity, EventLogCursorEntity],
  migrations: [
    Webhooks1732300006000,
    WebhookPages1732400060000,
    WebhookSecretRotation1732400090000,
    Events1732400130000,
    DeliveryTraceContext1732400173000,
    EventsByPayment1764402100000,
    EventLogCursors1764403100000,
    EventLogCaughtUp1764403200100,
  ],
};
