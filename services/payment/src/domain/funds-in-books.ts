import {
  fundsMoneyKey,
  type CryptoInstructions,
  type FundsReceived,
  type PaymentMethod,
  type ReceivedFundsKind,
  type Token,
} from '@gateway/contracts';

/**
 * What the books learn of received funds (docs/money-model.md#suspense): the platform holds money that belongs to no
 * payment yet, valued in BRL centavos. PIX is BRL already; a token amount is valued at the quote locked for the payment
 * it named (its price: `amount_centavos` for `amount_base_units` of the token), the cost at which the books hold its
 * tokens, rounded half up. Without a price (a payment the gateway does not know) the value is unknown: null.
 */
export function fundsValueCentavos(
  funds: { rail: PaymentMethod; amountCentavos: number | null; amountBaseUnits: string | null },
  price: { amountCentavos: number; baseUnits: string } | null,
): number | null {
  if (funds.rail === 'pix')
    return funds.amountCentavos !== null && funds.amountCentavos > 0 ? funds.amountCentavos : null;
  if (funds.amountBaseUnits === null || price === null) return null;
  const priceUnits = BigInt(price.baseUnits);
  if (priceUnits <= 0n) return null;
  const scaled = BigInt(funds.amountBaseUnits) * BigInt(price.amountCentavos);
  const value = (scaled * 2n + priceUnits) / (priceUnits * 2n);
  return value > 0n ? Number(value) : null;
}

/** A payment's price for valuing its token amounts: its BRL amount for the base units its instructions ask. */
export function paymentPrice(payment: {
  amountCentavos: number;
  instructions: unknown;
}): { amountCentavos: number; baseUnits: string } | null {
  const baseUnits = (payment.instructions as Partial<CryptoInstructions> | null)?.amount_base_units;
  return baseUnits ? { amountCentavos: payment.amountCentavos, baseUnits } : null;
}

/**
 * The `payment.funds.received.v1` of a record (null for `unreadable` money, whose amount is not known yet: it is
 * announced once read, as what it turned out to be). Tokens of another mint than the payment's (`otherToken`) are
 * announced without a value or token: the payment's price does not value them.
 */
export function fundsReceivedEvent(
  eventId: string,
  record: {
    fundsId: string;
    kind: ReceivedFundsKind;
    recordedAt: Date;
    rail: PaymentMethod;
    railReference: string;
    instruction: string;
    amountCentavos: number | null;
    amountBaseUnits: string | null;
    paymentId: string;
  },
  payment: { businessId: string; amountCentavos: number; instructions: unknown; token: Token | null } | null,
  { otherToken = false }: { otherToken?: boolean } = {},
): FundsReceived | null {
  if (record.kind === 'unreadable') return null;
  const priced = otherToken ? null : payment;
  return {
    event_id: eventId,
    occurred_at: record.recordedAt.toISOString(),
    funds_id: record.fundsId,
    money_key: fundsMoneyKey({
      funds_id: record.fundsId,
      rail: record.rail,
      reference: record.railReference,
      instruction: record.instruction,
    }),
    kind: record.kind,
    rail: record.rail,
    payment_id: record.paymentId,
    business_id: payment?.businessId ?? null,
    amount_centavos: fundsValueCentavos(record, priced && paymentPrice(priced)),
    amount_base_units: record.rail === 'pix' ? null : record.amountBaseUnits,
    token: record.rail === 'pix' ? null : (priced?.token ?? null),
    rail_reference: record.railReference,
  };
}
