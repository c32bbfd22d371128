// API Pix amounts: `\d{1,10}\.\d{2}` (e.g. "123.45").
const PIX_AMOUNT_PATTERN = /^(\d{1,10})\.(\d{2})$/;

export class InvalidAmountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidAmountError';
  }
}

/** 12345 -> "123.45", with string arithmetic so no float ever rounds a centavo. */
export function centavosToPixAmount(centavos: number): string {
  if (!Number.isSafeInteger(centavos) || centavos < 0) {
    throw new InvalidAmountError(`centavos must be a non-negative integer, got ${centavos}`);
  }
  const digits = centavos.toString().padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** "123.45" -> 12345. */
export function pixAmountToCentavos(amount: string): number {
  const match = PIX_AMOUNT_PATTERN.exec(amount);
  if (!match) throw new InvalidAmountError(`not an API Pix amount: "${amount}"`);
  return Number(`${match[1]}${match[2]}`);
}

// An account balance as Efí answers it (`GET /v2/gn/saldo`, `{"saldo": "100.00"}`): reais, a dot, two decimals.
const BALANCE_PATTERN = /^(\d+)\.(\d{2})$/;

/**
 * "123.45" -> 12345, exactly: the digits are read as an integer (never through a float), and a balance too large to
 * be an exact integer here is refused rather than rounded.
 */
export function balanceToCentavos(saldo: string): number {
  const match = BALANCE_PATTERN.exec(saldo);
  if (!match) throw new InvalidAmountError(`not a balance amount: "${saldo}"`);
  const centavos = BigInt(`${match[1]}${match[2]}`);
  if (centavos > BigInt(Number.MAX_SAFE_INTEGER))
    throw new InvalidAmountError(`balance too large to hold exactly: "${saldo}"`);
  return Number(centavos);
}
