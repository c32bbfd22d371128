import { PAYMENT_DESCRIPTION_MAX_LENGTH, type CheckoutBuyer } from '@gateway/contracts';

/** A CPF has 11 digits (its check digits are verified by the customer service, where documents are kept). */
const CPF_DIGITS = 11;

/**
 * Which of the buyer's fields a recurring checkout refuses before any customer is created: a document that cannot be
 * a CPF (a subscription started on the hosted page names a person), in contract order.
 */
export function buyerProblems(buyer: CheckoutBuyer): string[] {
  return buyer.document.replace(/\D/g, '').length === CPF_DIGITS ? [] : ['document'];
}

/** What the payer's bank app shows of the subscription: the product's name, within the rails' bound. */
export function subscriptionDescription(productName: string): string {
  return productName.trim().slice(0, PAYMENT_DESCRIPTION_MAX_LENGTH);
}
