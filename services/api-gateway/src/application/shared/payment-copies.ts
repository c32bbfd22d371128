import type { DataSource } from 'typeorm';
import {
  openPaymentStatuses,
  type CryptoInstructions,
  type PaymentRecord,
  type PixInstructions,
} from '@gateway/contracts';
import type { Logger } from '@gateway/observability';
import { markPaymentCopyStale, storePaymentCopy } from '../../persistence';
import type { EventFeedHealth } from '../../domain/event-feed-health';
import type { ChangeFeedWatermark } from '../../domain/change-feed-watermark';

/** What the use cases of the gateway's payment copies share (docs/adr/0042-gateway-payment-read-model.md). */
export interface PaymentCopies {
  dataSource: DataSource;
  /**
   * A copy known true longer ago than this is read again before it is answered, and a change's mark holds this long at
   * most: the bound on staleness when an event is lost.
   */
  maxAgeMs: number;
  /** Whether the events reach the copies in time: the copy of an open payment is answered only while they do. */
  feed: EventFeedHealth;
  /** When the copies were last known complete, by the payment service's change feed (docs/adr/0043). */
  changeFeed: ChangeFeedWatermark;
  logger: Logger;
}

/**
 * Makes what the payment service sent the copy (see `storePaymentCopy`), or, for a record without a version (a payment
 * service of a release before it was carried), marks the copy instead, so reads of it ask the payment service.
 */
export async function copyRecord(
  copies: PaymentCopies,
  record: PaymentRecord,
  instructions: PixInstructions | CryptoInstructions | null,
  asOf: string | null,
): Promise<void> {
  const { manager } = copies.dataSource;
  if (record.version === undefined)
    await markPaymentCopyStale(manager, record.business_id, record.payment_id, copies.maxAgeMs);
  else await storePaymentCopy(manager, record, instructions, asOf);
}

/**
 * Whether a copy may answer for the payment service: no change of it in flight, known true within `maxAgeMs` (its own
 * age, or the change feed's when the feed was read to its end since), no refund in flight (it changes what the payment
 * says it returned with no payment event), and, while the payment is open, the events keeping up (the copy could
 * trail a webhook already sent).
 */
export function copyAnswers(
  copies: PaymentCopies,
  copy: { record: PaymentRecord; stale: boolean; ageMs: number },
  now: number,
): boolean {
  if (copy.stale || Math.min(copy.ageMs, copies.changeFeed.ageMs(now)) > copies.maxAgeMs) return false;
  if ((copy.record.refund_reserved_centavos ?? 0) !== (copy.record.refunded_centavos ?? 0)) return false;
  return !isOpen(copy.record) || copies.feed.keepingUp(now);
}

export const isOpen = (record: PaymentRecord): boolean =>
  (openPaymentStatuses as readonly string[]).includes(record.status);
