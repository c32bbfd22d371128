import fc from 'fast-check';
import { InvalidAmountError, balanceToCentavos } from '../src/domain/amount';

describe('balanceToCentavos (Efí GET /v2/gn/saldo)', () => {
  test('reads "123.45" as 12345, exactly', () => {
    expect(balanceToCentavos('123.45')).toBe(12345);
    expect(balanceToCentavos('0.00')).toBe(0);
    expect(balanceToCentavos('0.07')).toBe(7);
    expect(balanceToCentavos('100.00')).toBe(10000);
  });

  test('is exact where a float is not (0.29, 1.15, 4.35, 1234567.89 ...)', () => {
    // parseFloat('0.29') * 100 is 28.999999999999996; 1.15 * 100 is 114.99999999999999.
    expect(balanceToCentavos('0.29')).toBe(29);
    expect(balanceToCentavos('1.15')).toBe(115);
    expect(balanceToCentavos('4.35')).toBe(435);
    expect(balanceToCentavos('1234567.89')).toBe(123456789);
  });

  test('any integer number of centavos written as Efí writes it reads back as itself', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (centavos) => {
        const digits = String(centavos).padStart(3, '0');
        expect(balanceToCentavos(`${digits.slice(0, -2)}.${digits.slice(-2)}`)).toBe(centavos);
      }),
    );
  });

  test('refuses what is not a balance, and one too large to be exact, rather than rounding', () => {
    for (const bad of ['', '12', '12.3', '12.345', '-1.00', '1e3', ' 1.00', '1,00', '١.٠٠', 'NaN', '0x10.00'])
      expect(() => balanceToCentavos(bad)).toThrow(InvalidAmountError);
    expect(() => balanceToCentavos('90071992547409.92')).toThrow(/too large/);
    expect(balanceToCentavos('90071992547409.91')).toBe(Number.MAX_SAFE_INTEGER);
  });
});
