/** A token amount in base units (decimal string) to a number, without float division: ('1234567', 6) -> 1.234567. */
export function baseUnitsToNumber(baseUnits: string, decimals: number): number {
  if (decimals === 0) return Number(baseUnits);
  const digits = baseUnits.padStart(decimals + 1, '0');
  return Number(`${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`);
}
