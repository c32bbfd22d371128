import {
  fundsMoneyKey,
  type ArrivalQuote,
  type CryptoInstructions,
  type FundsReceived,
  type PaymentMethod,
  type ReceivedFundsKind,
  type Token,
} from '@gateway/contracts';
import { tokenDecimalsOf } from './funds';

/**
 * What the books learn of received funds (docs/money-model.md#suspense): the platform holds money that belongs to no
 * payment yet, valued in BRL centavos. PIX is BRL already; a token amount that arrived within its payment's window
 * (what the window collected, the excess of the transfer that paid it) is valued at the quote locked for the payment
 * (its price: `amount_centavos` for `amount_base_units` of the token), rounded half up. Without a price (a payment the
 * gateway does not know) the value is unknown: null. Tokens that arrived outside the window are valued at the quote of
 * their arrival instead (`arrivalValueCentavos`).
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

/**
 * How a token amount is valued: at its payment's locked quote (it arrived within the payment's window), or at the quote
 * of its arrival (outside the window: late, after the payment was paid, naming several payments, in another token);
 * `quote` null when no fresh quote could be had: then it is not valued at all, never at the locked quote.
 */
export type TokenValuation = { at: 'locked' } | { at: 'arrival'; quote: ArrivalQuote | null };

/**
 * A token amount at an arrival quote (`token_per_brl` tokens buy one BRL): base units / 10^decimals / rate × 100,
 * rounded down (never more BRL than the tokens are worth at that quote, whose spread already favours the platform);
 * null when it is worth less than a centavo or more than the books count.
 */
export function arrivalValueCentavos(
  baseUnits: string,
  quote: Pick<ArrivalQuote, 'token_per_brl'>,
  decimals: number,
): number | null {
  const [numerator, denominator] = quote.token_per_brl.split('/').map((part) => BigInt(part));
  if (!numerator || !denominator) return null;
  const value = (BigInt(baseUnits) * denominator * 100n) / (numerator * 10n ** BigInt(decimals));
  return value > 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
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
 * announced once read, as what it turned out to be). Tokens are valued as `valuation` says (at the payment's locked
 * quote unless told otherwise). At their arrival quote, they are announced in the quote's token (a transfer in another
 * token than the payment's is valued in its own); without one, with no value. Tokens of another mint than the
 * payment's (`otherToken`) are never valued at the payment's price.
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
  {
    otherToken = false,
    valuation = { at: 'locked' },
  }: { otherToken?: boolean; valuation?: TokenValuation } = {},
): FundsReceived | null {
  if (record.kind === 'unreadable') return null;
  const priced = otherToken ? null : payment;
  const value = tokenValue(record, payment, priced, valuation);
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
    amount_centavos: value.centavos,
    amount_base_units: record.rail === 'pix' ? null : record.amountBaseUnits,
    token: record.rail === 'pix' ? null : value.token,
    rail_reference: record.railReference,
  };
}

/** The value and token of a record as `valuation` says (PIX: its amount, no token). */
function tokenValue(
  record: { rail: PaymentMethod; amountCentavos: number | null; amountBaseUnits: string | null },
  payment: { instructions: unknown } | null,
  priced: { amountCentavos: number; instructions: unknown; token: Token | null } | null,
  valuation: TokenValuation,
): { centavos: number | null; token: Token | null } {
  if (record.rail === 'pix' || valuation.at === 'locked')
    return {
      centavos: fundsValueCentavos(record, priced && paymentPrice(priced)),
      token: priced?.token ?? null,
    };
  const { quote } = valuation;
  if (quote === null) return { centavos: null, token: priced?.token ?? null };
  const decimals = payment === null ? null : tokenDecimalsOf(payment.instructions);
  const centavos =
    record.amountBaseUnits === null || decimals === null
      ? null
      : arrivalValueCentavos(record.amountBaseUnits, quote, decimals);
  return { centavos, token: quote.token };
}
