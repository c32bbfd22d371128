import type { DataSource } from 'typeorm';
import type { Logger } from '@gateway/observability';
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
