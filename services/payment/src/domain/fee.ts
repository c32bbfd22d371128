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
