import type { ChargeDebtor, Customer } from '@gateway/contracts';

/** A CPF (11 digits) or CNPJ (14 characters) as the customer service stores it: check digits verified, no punctuation. */
const DEBTOR_DOCUMENT = /^(\d{11}|[0-9A-Z]{14})$/;

/**
 * The debtor a PIX charge names for a payment of this customer: only a customer with both a name and a CPF/CNPJ can be
 * one (API Pix requires the pair); any other customer leaves the charge without a debtor, payable as before.
 */
export function chargeDebtorOf(customer: Pick<Customer, 'name' | 'document_number'>): ChargeDebtor | null {
  const { name, document_number: document } = customer;
  if (!name || !document || !DEBTOR_DOCUMENT.test(document)) return null;
  return { name, document };
}
