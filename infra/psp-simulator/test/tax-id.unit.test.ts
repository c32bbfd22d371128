import { validCnpj, validCpf } from '../src/tax-id';

describe('taxpayer ids', () => {
  it("checks a CPF's digits", () => {
    expect(validCpf('12345678909')).toBe(true);
    expect(validCpf('52998224725')).toBe(true);
    expect(validCpf('12345678900')).toBe(false);
    expect(validCpf('11111111111')).toBe(false);
    expect(validCpf('1234567890')).toBe(false);
  });

  it("checks a CNPJ's digits, alphanumeric ones included", () => {
    expect(validCnpj('11222333000181')).toBe(true);
    expect(validCnpj('12345678000195')).toBe(true);
    expect(validCnpj('11222333000182')).toBe(false);
    expect(validCnpj('00000000000000')).toBe(false);
    // The Receita Federal's example of an alphanumeric CNPJ: 12.ABC.345/01DE-35.
    expect(validCnpj('12ABC34501DE35')).toBe(true);
    expect(validCnpj('12ABC34501DE36')).toBe(false);
  });
});
