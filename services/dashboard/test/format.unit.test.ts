import { formatBrl, formatDateTime, isTimeZone, parseBrlInput } from '../src/domain/format';

describe('amounts and dates as a Brazilian reads them', () => {
  test.each([
    [1234.56, 'R$ 1.234,56'],
    [0, 'R$ 0,00'],
    [0.1, 'R$ 0,10'],
    [12, 'R$ 12,00'],
    [-12.5, '-R$ 12,50'],
    [9999999999.99, 'R$ 9.999.999.999,99'],
    [0.29, 'R$ 0,29'],
  ])('%p reais read %s', (amount, text) => {
    expect(formatBrl(amount)).toBe(text);
  });

  test.each([
    ['1.234,56', 123456],
    ['1234,56', 123456],
    ['R$ 12,5', 1250],
    ['12.50', 1250],
    ['1.000', 100000],
    ['10', 1000],
    [' 0,01 ', 1],
  ])('typed %p is %p centavos', (text, centavos) => {
    expect(parseBrlInput(text)).toBe(centavos);
  });

  test.each(['', 'abc', '1,234', '12,345', '1.23.4', '-5', '1e3', '12,'])('%p is no amount', (text) => {
    expect(parseBrlInput(text)).toBeNull();
  });

  test("a moment in the business's time zone, day first", () => {
    expect(formatDateTime('2026-11-29T20:33:00Z', 'America/Sao_Paulo')).toBe('29/11/2026 17:33');
    expect(formatDateTime('2026-01-01T02:05:00Z', 'America/Sao_Paulo')).toBe('31/12/2025 23:05');
    expect(formatDateTime('2026-11-29T20:33:00Z', 'America/Manaus')).toBe('29/11/2026 16:33');
    expect(isTimeZone('America/Sao_Paulo')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
