import type { DataSource } from 'typeorm';
import type { PaymentEventPayload } from '@gateway/contracts';
import { histogram } from '@gateway/observability';
import { storePaymentCopy } from '../persistence';

const copyLag = histogram(
  'gateway_payment_copy_lag_seconds',
  'From a payment event (its occurred_at, the payment service clock) to its record in the gateway copy: how stale a read answered from the copy can be while events flow',
  [],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
);

/**
 * A `payment.*` event carries the payment's record as it changed: it becomes the gateway's copy unless the copy holds
 * that version or a newer one already (events and replies arrive in any order). Its instructions are kept (an event
 * carries none), and a stale mark too (only a reply or a read clears it).
 */
export async function applyPaymentEvent(dataSource: DataSource, event: PaymentEventPayload): Promise<void> {
  await storePaymentCopy(dataSource.manager, event.payment, null, false);
  copyLag.observe(Math.max(0, (Date.now() - Date.parse(event.occurred_at)) / 1000));
}
