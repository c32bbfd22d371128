import { openPaymentStatuses, type PaymentStatus } from '@gateway/contracts';

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

/** The public domain event a transition into `to` emits. */
export function eventNameFor(to: FinalStatus): 'confirmed' | 'expired' | 'failed' | 'cancelled' {
  return to === 'paid' ? 'confirmed' : to;
}

export function invalidStatusMessage(status: PaymentStatus): string {
  return `Operação não permitida: o pagamento está com status ${status}.`;
}
