import type { DataSource } from 'typeorm';
import { newPublicId, splitName, type PaymentEventPayload, type WebhookEventName } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { paymentWebhookEvent, serializeDeliveryBody } from '../delivery/payload';

const SUBSCRIBED_WEBHOOKS = `SELECT id FROM webhooks
  WHERE business_id = $1 AND status = 'active' AND deleted_at IS NULL AND $2 = ANY(events)`;

/**
 * Handles `payment.created/confirmed/expired/failed.v1`: one delivery per active webhook of the business subscribed
 * to the public name, all in one transaction with the inbox row. The body is serialized here, once; the
 * (webhook, event) constraint backs the inbox up, so a re-published event never makes a second set.
 *
 * An event no webhook subscribes to (most `payment.created`) is acknowledged after one read, without a transaction or
 * an inbox row: it has no effect to deduplicate. A redelivery that finds a webhook subscribed since then creates its
 * deliveries then, once, like any first delivery.
 */
export function handlePaymentEvent(dataSource: DataSource, uow: UnitOfWork, onDeliveriesCreated: () => void) {
  return async (event: PaymentEventPayload, context: MessageContext): Promise<{ deliveries: number }> => {
    const type = splitName(context.envelope.name).type as WebhookEventName;
    const subscribed: unknown[] = await dataSource.query(`${SUBSCRIBED_WEBHOOKS} LIMIT 1`, [
      event.business_id,
      type,
    ]);
    if (subscribed.length === 0) return { deliveries: 0 };
    const body = serializeDeliveryBody(paymentWebhookEvent(type, event)).toString('utf8');
    const result = await uow.once(context, async (tx) => {
      const webhooks: Array<{ id: string }> = await tx.manager.query(SUBSCRIBED_WEBHOOKS, [
        event.business_id,
        type,
      ]);
      let created = 0;
      for (const webhook of webhooks) {
        const inserted: unknown[] = await tx.manager.query(
          `INSERT INTO deliveries (id, webhook_id, event_id, event_type, body, status, attempt_count, next_attempt_at)
           VALUES ($1, $2, $3, $4, $5, 'pending', 0, now())
           ON CONFLICT ON CONSTRAINT deliveries_one_per_event DO NOTHING
           RETURNING id`,
          [newPublicId('dlv'), webhook.id, event.event_id, type, body],
        );
        created += inserted.length;
      }
      return { deliveries: created };
    });
    if (result.deliveries > 0) onDeliveriesCreated();
    return result;
  };
}
