import {
  openPaymentStatuses,
  paymentCancelled,
  paymentConfirmed,
  paymentCreated,
  paymentExpired,
  paymentFailed,
  type MessageDefinition,
  type PaymentEventPayload,
  type PaymentStatus,
} from '@gateway/contracts';

/** Statuses a payment can still leave; every transition is a conditional update guarded by this list. */
export const OPEN_STATUSES = openPaymentStatuses;
export type OpenStatus = (typeof OPEN_STATUSES)[number];
export type FinalStatus = Exclude<PaymentStatus, OpenStatus>;

export function isOpen(status: PaymentStatus): status is OpenStatus {
  return (OPEN_STATUSES as readonly string[]).includes(status);
}

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return isOpen(from) && !isOpen(to);
}

/** The public `payment.*` event of each change a payment goes through: its creation, then its one final transition. */
export const paymentEvents = {
  created: paymentCreated,
  confirmed: paymentConfirmed,
  expired: paymentExpired,
  failed: paymentFailed,
  cancelled: paymentCancelled,
} satisfies Record<string, MessageDefinition<PaymentEventPayload>>;

export type PaymentEventName = keyof typeof paymentEvents;

/** The public domain event a transition into `to` emits. */
export function eventNameFor(to: FinalStatus): Exclude<PaymentEventName, 'created'> {
  return to === 'paid' ? 'confirmed' : to;
}

export function invalidStatusMessage(status: PaymentStatus): string {
  return `Operação não permitida: o pagamento está com status ${status}.`;
}
