/** An exact positive fraction; prices never go through floating point. */
export interface Rational {
  numerator: bigint;
  denominator: bigint;
}

/** Parses a decimal such as "0.1834", "5.45" or "1.2e-7" (as JSON numbers print) exactly. */
export function rationalFromDecimal(text: string): Rational {
  const match = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match) throw new RangeError(`not a non-negative decimal: ${text}`);
  const fraction = match[2] ?? '';
  const exponent = Number(match[3] ?? '0') - fraction.length;
  const digits = BigInt(`${match[1]}${fraction}`);
  return exponent >= 0
    ? { numerator: digits * 10n ** BigInt(exponent), denominator: 1n }
    : { numerator: digits, denominator: 10n ** BigInt(-exponent) };
}

export function invert(value: Rational): Rational {
  if (value.numerator === 0n) throw new RangeError('cannot invert zero');
  return { numerator: value.denominator, denominator: value.numerator };
}

export function compare(a: Rational, b: Rational): number {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function average(a: Rational, b: Rational): Rational {
  return {
    numerator: a.numerator * b.denominator + b.numerator * a.denominator,
    denominator: 2n * a.denominator * b.denominator,
  };
}

export function scaleByBps(value: Rational, bps: bigint): Rational {
  return { numerator: value.numerator * bps, denominator: value.denominator * 10_000n };
}

/** |a - b| / b in basis points, rounded up. */
export function deviationBps(a: Rational, b: Rational): bigint {
  const difference = a.numerator * b.denominator - b.numerator * a.denominator;
  const absolute = difference < 0n ? -difference : difference;
  const denominator = a.denominator * b.numerator;
  return ceilDiv(absolute * 10_000n, denominator);
}

export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

/** `numerator/denominator`: how a locked quote is stored, so converting again later gives the very same amounts. */
export function formatRatio(value: Rational): string {
  return `${value.numerator}/${value.denominator}`;
}

export function parseRatio(text: string): Rational {
  const match = /^(\d+)\/([1-9]\d*)$/.exec(text);
  if (!match) throw new RangeError(`not a ratio: ${text}`);
  return { numerator: BigInt(match[1]!), denominator: BigInt(match[2]!) };
}
