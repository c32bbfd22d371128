import fc from 'fast-check';
import { InvalidAmountError, centavosToPixAmount, pixAmountToCentavos } from '../src/domain/amount';

describe('API Pix amount conversion', () => {
  it('formats centavos as the API Pix decimal string, keeping leading zeros of the cents', () => {
    expect(centavosToPixAmount(12345)).toBe('123.45');
    expect(centavosToPixAmount(5)).toBe('0.05');
    expect(centavosToPixAmount(100)).toBe('1.00');
    expect(centavosToPixAmount(0)).toBe('0.00');
  });

  it('reads the API Pix decimal string back into centavos', () => {
    expect(pixAmountToCentavos('123.45')).toBe(12345);
    expect(pixAmountToCentavos('0.07')).toBe(7);
    expect(pixAmountToCentavos('9999999999.99')).toBe(999999999999);
  });

  it('round-trips every amount without losing a centavo', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999 }), (centavos) => {
        expect(pixAmountToCentavos(centavosToPixAmount(centavos))).toBe(centavos);
      }),
    );
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])('refuses %p centavos', (centavos) => {
    expect(() => centavosToPixAmount(centavos)).toThrow(InvalidAmountError);
  });

  it.each(['12.3', '12', '1.234', '-1.00', '1,00', ' 1.00', '12345678901.00', ''])(
    'refuses the malformed amount %p',
    (amount) => {
      expect(() => pixAmountToCentavos(amount)).toThrow(InvalidAmountError);
    },
  );
});
