import { splitName, type MessageDefinition } from './message';
import * as events from './events';
import * as payment from './payment-commands';
import * as pix from './pix-messages';
import * as crypto from './crypto-messages';
import * as checkout from './checkout-commands';
import * as customer from './customer-commands';
import * as webhook from './webhook-commands';
import * as refund from './refund-messages';
import * as publicEvents from './event-commands';
import * as eventLog from './event-log-commands';
import * as ledger from './ledger-messages';
import * as payout from './payout-messages';
import * as suspense from './suspense-messages';
import * as dispute from './dispute-messages';
import * as reconciliation from './reconciliation-messages';
import * as reservation from './reservation-messages';
import * as adjustment from './adjustment-messages';
import * as pspAccount from './psp-account-messages';
import * as recurrence from './recurrence-messages';
import * as subscription from './subscription-commands';

function isDefinition(value: unknown): value is MessageDefinition<unknown> {
  return (
    typeof value === 'object' && value !== null && 'name' in value && 'kind' in value && 'schema' in value
  );
}

/** Every message the services exchange, by versioned name: consumers look incoming messages up here. */
export const catalog: ReadonlyMap<string, MessageDefinition<unknown>> = new Map(
  [
    events,
    payment,
    pix,
    crypto,
    checkout,
    customer,
    webhook,
    refund,
    publicEvents,
    eventLog,
    ledger,
    payout,
    suspense,
    dispute,
    reconciliation,
    reservation,
    adjustment,
    pspAccount,
    recurrence,
    subscription,
  ]
    .flatMap((module) => Object.values(module))
    .filter(isDefinition)
    .map((definition) => [definition.name, definition]),
);

export function findMessage(name: string): MessageDefinition<unknown> | undefined {
  return catalog.get(name);
}

/** The versions of a message type this release knows (`payment.confirmed` -> [1]), oldest first. */
export function knownVersionsOf(type: string): number[] {
  return [...catalog.keys()]
    .map(splitName)
    .filter((known) => known.type === type)
    .map((known) => known.version)
    .sort((a, b) => a - b);
}
