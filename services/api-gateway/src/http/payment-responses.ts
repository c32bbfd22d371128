import {
  centavosToBrl,
  openPaymentStatuses,
  publicPaymentRecord,
  type CryptoInstructions,
  type PaymentRecord,
  type PaymentView,
  type PixInstructions,
  type OperatorReceivedFundsItem,
  type ReceivedFundsItem,
  type HttpApi,
  type Token,
} from '@gateway/contracts';
import { baseUnitsToNumber } from '../domain/money';

// The payment service answers in centavos with rail details in base units; these shape its answers into the
// public responses of docs/api.md (BRL floats, upper-case token names). Their types are the ones generated from the
// answer schemas of the operation table (`pnpm generate:sdk`), so an answer built otherwise than its schema says does
// not compile.

export function publicCrypto(crypto: CryptoInstructions): HttpApi.CryptoPaymentInstructions {
  return {
    currency: crypto.currency.toUpperCase() as Uppercase<Token>,
    network: crypto.network,
    qr_code: crypto.qr_code,
    payment_link: crypto.payment_link,
    wallet_address: crypto.wallet_address,
    amount: baseUnitsToNumber(crypto.amount_base_units, crypto.decimals),
    expires_at: crypto.expires_at,
  };
}

function publicPix(pix: PixInstructions): HttpApi.PixCode {
  return { qr_code: pix.qr_code, copia_e_cola: pix.copia_e_cola };
}

function amounts(payment: PaymentRecord): { amount: number; fee_brl: number; net_amount_brl: number } {
  return {
    amount: centavosToBrl(payment.amount_centavos),
    fee_brl: centavosToBrl(payment.fee_centavos),
    net_amount_brl: centavosToBrl(payment.amount_centavos - payment.fee_centavos),
  };
}

/** A reply that lacks the details of its own rail breaks the contract: the edge answers INTERNAL_ERROR. */
export class IncompletePaymentViewError extends Error {
  constructor(paymentId: string, rail: string) {
    super(`payment ${paymentId} came back without its ${rail} details`);
    this.name = 'IncompletePaymentViewError';
  }
}

/**
 * Response of POST /v1/payments (201): PIX carries `expires_at` at the top (a charge with a due date `due_date` and
 * `payable_until`: `askedDue` when the request had `pix.due`, and then never without them), crypto inside its
 * `crypto` object.
 */
export function paymentCreatedResponse(
  view: PaymentView,
  askedDue = false,
): HttpApi.OperationTypes['createPayment']['answer'] {
  const { payment } = view;
  const { amount, fee_brl, net_amount_brl } = amounts(payment);
  const head = {
    payment_id: payment.payment_id,
    amount,
    status: payment.status,
    fee_brl,
    net_amount_brl,
    customer_id: payment.customer_id ?? null,
  };
  if (payment.method === 'pix') {
    if (!view.pix) throw new IncompletePaymentViewError(payment.payment_id, 'pix');
    // A charge with a due date: its due date and last payable day where an immediate one has `expires_at`.
    if (view.pix.due_date && view.pix.payable_until && payment.customer_id)
      return {
        ...head,
        customer_id: payment.customer_id,
        due_date: view.pix.due_date,
        payable_until: view.pix.payable_until,
        pix: publicPix(view.pix),
      };
    // Asked with a due date and answered without one (a payment service or PIX adapter older than due dates ignored
    // it): never a 201 for an immediate charge the merchant did not ask for.
    if (askedDue) throw new IncompletePaymentViewError(payment.payment_id, 'due date');
    return { ...head, expires_at: view.pix.expires_at, pix: publicPix(view.pix) };
  }
  if (!view.crypto) throw new IncompletePaymentViewError(payment.payment_id, 'crypto');
  return { ...head, payment_method: 'crypto', crypto: publicCrypto(view.crypto) };
}

/**
 * Response of GET /v1/payments/{id}: the payment record and, while it is open, the instructions its creation answered
 * (the same `pix` or `crypto` object), so a page can show the QR code again.
 */
export function paymentDetailsResponse(view: PaymentView): HttpApi.PaymentDetails {
  const record = publicPaymentRecord(view.payment);
  if (!(openPaymentStatuses as readonly string[]).includes(view.payment.status)) return record;
  if (view.pix) return { ...record, pix: publicPix(view.pix) };
  if (view.crypto) return { ...record, crypto: publicCrypto(view.crypto) };
  return record;
}

/** Response of PATCH /v1/payments/{id}: a new PIX QR code, or new crypto instructions when the amount changed. */
export function paymentUpdatedResponse(view: PaymentView, amountChanged: boolean): HttpApi.PaymentUpdated {
  const { payment } = view;
  return {
    payment_id: payment.payment_id,
    ...amounts(payment),
    status: payment.status,
    ...(view.pix ? { pix: publicPix(view.pix) } : {}),
    ...(view.crypto && amountChanged ? { crypto: publicCrypto(view.crypto) } : {}),
  };
}

/**
 * One entry of GET /v1/payments/{id}/received-funds: money kept for the payment outside its happy path, in BRL for
 * PIX and in tokens for crypto (the other amount null).
 */
export function receivedFundsResponse(item: ReceivedFundsItem): HttpApi.ReceivedFunds {
  return {
    funds_id: item.funds_id,
    kind: item.kind,
    rail: item.rail,
    reference: item.reference,
    instruction: item.instruction ?? null,
    amount_brl: item.amount_centavos === null ? null : centavosToBrl(item.amount_centavos),
    amount_token:
      item.amount_base_units === null || item.decimals === null
        ? null
        : baseUnitsToNumber(item.amount_base_units, item.decimals),
    detected_at: item.detected_at,
    status: item.status,
    returned_by: item.returned_by,
    returned_at: item.returned_at,
    value_brl: item.valued_centavos == null ? null : centavosToBrl(item.valued_centavos),
    arrival_quote: item.quote
      ? { token_per_brl: ratioToNumber(item.quote.token_per_brl), quoted_at: item.quote.quoted_at }
      : null,
  };
}

/** An exact ratio `numerator/denominator` as a number, for the JSON edge only. */
const ratioToNumber = (ratio: string): number => {
  const [numerator, denominator] = ratio.split('/').map(Number);
  return numerator! / denominator!;
};

/** The operator's view of one received-funds record (list, assign, return): with its payment, business and return. */
export function operatorReceivedFundsResponse(
  item: OperatorReceivedFundsItem,
): HttpApi.OperatorReceivedFunds {
  return {
    ...receivedFundsResponse(item),
    payment_id: item.payment_id,
    business_id: item.business_id,
    amount_base_units: item.amount_base_units,
    assigned_payment_id: item.assigned_payment_id ?? null,
    assigned_at: item.assigned_at ?? null,
    return_reference: item.return_reference ?? null,
    return_failure_reason: item.return_failure_reason ?? null,
  };
}
