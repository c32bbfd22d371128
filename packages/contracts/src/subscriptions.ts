import type { EventDefinition, ServiceName } from './message';
import {
  paymentCancelled,
  paymentConfirmed,
  paymentExpired,
  paymentFailed,
  publicPaymentEvents,
} from './events';
import { paymentChanged } from './payment-commands';
import { pixChargeClosed, pixChargePaid, pixMedReported } from './pix-messages';
import { cryptoRequestClosed, cryptoRequestSettled, cryptoTransferUnapplied } from './crypto-messages';
import {
  cryptoRefundRequested,
  cryptoRefundSettled,
  pixRefundRequested,
  pixRefundSettled,
  publicRefundEvents,
  refundFailed,
  refundSucceeded,
} from './refund-messages';
import {
  cryptoFundsReturnRequested,
  cryptoFundsReturnSettled,
  fundsAssigned,
  fundsReceived,
  fundsReturned,
  pixFundsReturnRequested,
  pixFundsReturnSettled,
} from './suspense-messages';
import { payoutRequested, pixPayoutSettled, publicPayoutEvents } from './payout-messages';
import { disputeClosed, disputeCreated, publicDisputeEvents } from './dispute-messages';
import { pixCycleAttemptFailed, pixRecurrenceChanged } from './recurrence-messages';
import { publicSubscriptionEvents } from './subscription-commands';

/**
 * The events each service's events queue is bound to: the one declaration of who consumes which event. Every service
 * declares the whole of it when it connects (so an event published before its consumer ever ran waits in that
 * consumer's queue), the deployment's RabbitMQ definitions are generated from it, and a service refuses to start when
 * the events it registers handlers for (bound) are not exactly its list here.
 */
export const eventSubscriptions: Readonly<Record<ServiceName, readonly EventDefinition<unknown>[]>> = {
  // The gateway's payment copies (reads answered without a hop): every change a payment event carries, and the
  // refunds that change what a payment says it returned.
  'api-gateway': [...publicPaymentEvents, paymentChanged, refundSucceeded],
  payment: [
    pixChargePaid,
    pixChargeClosed,
    cryptoRequestSettled,
    cryptoRequestClosed,
    cryptoTransferUnapplied,
    pixRefundSettled,
    cryptoRefundSettled,
    pixMedReported,
    pixFundsReturnSettled,
    cryptoFundsReturnSettled,
    pixRecurrenceChanged,
    pixCycleAttemptFailed,
  ],
  'pix-adapter': [paymentCancelled, pixRefundRequested, pixFundsReturnRequested, payoutRequested],
  'solana-watcher': [paymentCancelled, cryptoRefundRequested, cryptoFundsReturnRequested],
  checkout: [paymentConfirmed, paymentExpired, paymentFailed, paymentCancelled],
  customer: [],
  'webhook-dispatcher': [
    ...publicPaymentEvents,
    ...publicRefundEvents,
    ...publicPayoutEvents,
    ...publicDisputeEvents,
    ...publicSubscriptionEvents,
  ],
  ledger: [
    paymentConfirmed,
    refundSucceeded,
    refundFailed,
    fundsReceived,
    fundsReturned,
    fundsAssigned,
    disputeCreated,
    disputeClosed,
    pixPayoutSettled,
  ],
};

/** The names of the events `service`'s events queue is bound to. */
export function subscribedEventNames(service: ServiceName): string[] {
  return eventSubscriptions[service].map((definition) => definition.name);
}
