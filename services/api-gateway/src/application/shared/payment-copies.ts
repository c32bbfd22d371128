import type { DataSource } from 'typeorm';
import type { CryptoInstructions, PaymentRecord, PixInstructions } from '@gateway/contracts';
import type { Logger } from '@gateway/observability';
import { markPaymentCopyStale, storePaymentCopy } from '../../persistence';
import type { EventFeedHealth } from '../../domain/event-feed-health';

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
