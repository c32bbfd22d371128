export interface FeeTerms {
  percentBps: number;
  fixedCentavos: number;
}

export interface FeeBreakdown {
  feeCentavos: number;
  netCentavos: number;
}

/**
 * fee = round-half-up(amount * bps / 10000) + fixed; net = amount - fee. BigInt keeps the product exact even for
 * amounts near Number.MAX_SAFE_INTEGER. The fee never exceeds the amount (a fixed fee above a small amount would
 * otherwise credit the merchant a negative net).
 */
export function computeFee(amountCentavos: number, terms: FeeTerms): FeeBreakdown {
  const checked = { amountCentavos, percentBps: terms.percentBps, fixedCentavos: terms.fixedCentavos };
  for (const [name, value] of Object.entries(checked)) {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RangeError(`${name} must be a non-negative integer`);
  }
  const percentPart = (BigInt(amountCentavos) * BigInt(terms.percentBps) + 5000n) / 10000n;
  const feeCentavos = Math.min(amountCentavos, Number(percentPart) + terms.fixedCentavos);
  return { feeCentavos, netCentavos: amountCentavos - feeCentavos };
}

/** The largest fixed part a default fee may have (R$ 10.000,00): beyond it a typo, not a price. */
const MAX_DEFAULT_FIXED_CENTAVOS = 1_000_000;

/**
 * A fee written as `<basis points>bps+<fixed centavos>` (`99bps+0`: 0.99 % and no fixed part), as a deployment's
 * default fee rules are set; null for an empty text (no default). Throws on anything else.
 */
export function parseFeeTerms(text: string): FeeTerms | null {
  if (text === '') return null;
  const match = /^(\d{1,5})bps\+(\d{1,7})$/.exec(text);
  const percentBps = Number(match?.[1]);
  const fixedCentavos = Number(match?.[2]);
  if (!match || percentBps > 10_000 || fixedCentavos > MAX_DEFAULT_FIXED_CENTAVOS)
    throw new RangeError(
      `must be <basis points>bps+<fixed centavos> (e.g. 99bps+0), at most 10000bps+${MAX_DEFAULT_FIXED_CENTAVOS}, or empty for none`,
    );
  return { percentBps, fixedCentavos };
}
