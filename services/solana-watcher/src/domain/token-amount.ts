/** Base units as a plain decimal string: at most `decimals` fraction digits, trailing zeros trimmed, never exponent. */
export function formatTokenAmount(baseUnits: bigint, decimals: number): string {
  if (baseUnits < 0n) throw new RangeError('token amount must not be negative');
  const scale = 10n ** BigInt(decimals);
  const fraction = (baseUnits % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  const whole = (baseUnits / scale).toString();
  return fraction.length > 0 ? `${whole}.${fraction}` : whole;
}

/** Parses a plain non-negative decimal into base units; rejects exponents and more than `decimals` fraction digits. */
export function parseTokenAmount(text: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`invalid token amount: ${text}`);
  const fraction = match[2] ?? '';
  if (fraction.length > decimals)
    throw new RangeError(`token amount ${text} has more than ${decimals} decimals`);
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}
