import { fundsMoneyKey, fundsReceived, fundsReturned, newPublicId } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import type { ReceivedFunds } from '../../domain/funds';
import { fundsReceivedEvent, type TokenValuation } from '../../domain/funds-in-books';
import {
  recordFundsValue,
  recordReceivedFunds,
  type PaymentEntity,
  type ReceivedFundsEntity,
} from '../../persistence';

// What every use case that keeps or returns money outside the happy path shares: the record and the event that tells
// the books about it commit together (the event goes to the outbox of the same transaction).

/**
 * Records funds outside the happy path (see recordReceivedFunds) and, when they were new (or an unreadable record
 * became what it turned out to be), tells the books the platform holds them (`payment.funds.received.v1`), in `tx`.
 * `payment` is the payment they named as the caller read it (null when the gateway does not know it): its business,
 * and the price that values a token amount that arrived within its window; `otherToken`: tokens of another mint than
 * the payment's, which its price does not value; `valuation`: tokens that arrived outside the window are valued at the
 * quote of their arrival (none: not valued, nothing booked). The value told is kept on the record (what an assignment
 * or a return by hand credits), with the arrival quote that gave it. False when the funds were on record already.
 */
export async function keepReceivedFunds(
  tx: Transaction,
  funds: ReceivedFunds,
  payment: PaymentEntity | null,
  { otherToken = false, valuation }: { otherToken?: boolean; valuation?: TokenValuation } = {},
): Promise<boolean> {
  const recorded = await recordReceivedFunds(tx.manager, funds);
  if (!recorded) return false;
  const eventId = newPublicId('evt');
  const event = fundsReceivedEvent(
    eventId,
    { ...funds, ...recorded, instruction: funds.instruction ?? '' },
    payment,
    { otherToken, valuation },
  );
  if (!event) return true;
  if (event.amount_centavos !== null)
    await recordFundsValue(
      tx.manager,
      recorded.fundsId,
      event.amount_centavos,
      valuation?.at === 'arrival' && funds.rail === 'crypto' ? valuation.quote : null,
    );
  await tx.emit(fundsReceived, event, { messageId: eventId });
  return true;
}

/**
 * Tells the books that held funds of the business's payment went back to the payer (`returnedBy`: the refund, the
 * operator through the rail, or `manual`: the business paid them back itself), in `tx`; `businessId`: null when the
 * operator returned money naming a payment the gateway does not know (never by hand); `railReference`: the refund's
 * or return's id at the rail, which the money left under; `feeCentavos`: by hand, the fee the business pays on the
 * money it is credited.
 */
export async function emitFundsReturned(
  tx: Transaction,
  funds: Pick<ReceivedFundsEntity, 'fundsId' | 'rail' | 'railReference' | 'instruction' | 'paymentId'>,
  businessId: string | null,
  returnedBy: string,
  railReference: string | null = null,
  feeCentavos?: number,
): Promise<void> {
  const eventId = newPublicId('evt');
  await tx.emit(
    fundsReturned,
    {
      event_id: eventId,
      occurred_at: new Date().toISOString(),
      funds_id: funds.fundsId,
      money_key: fundsMoneyKey({
        funds_id: funds.fundsId,
        rail: funds.rail,
        reference: funds.railReference,
        instruction: funds.instruction,
      }),
      rail: funds.rail,
      payment_id: funds.paymentId,
      business_id: businessId,
      returned_by: returnedBy,
      rail_reference: railReference,
      ...(feeCentavos === undefined ? {} : { fee_centavos: feeCentavos }),
    },
    { messageId: eventId },
  );
}
