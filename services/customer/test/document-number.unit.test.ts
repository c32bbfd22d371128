import fc from 'fast-check';
import { normaliseDocumentNumber } from '../src/domain/document-number';

/** Modulo-11 check digit as Receita Federal defines it for CPF and CNPJ. */
function checkDigit(base: readonly number[], weights: readonly number[]): number {
  const remainder = base.reduce((sum, digit, index) => sum + digit * weights[index]!, 0) % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

function cpfFrom(base: readonly number[]): string {
  const first = checkDigit(base, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit([...base, first], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return [...base, first, second].join('');
}

function cnpjFrom(base: readonly number[]): string {
  const firstWeights = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const first = checkDigit(base, firstWeights);
  const second = checkDigit([...base, first], [6, ...firstWeights]);
  return [...base, first, second].join('');
}

const notAllEqual = (digits: readonly number[]): boolean => new Set(digits).size > 1;
const validCpf = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 })
  .filter(notAllEqual)
  .map(cpfFrom);
const validCnpj = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 12 })
  .filter(notAllEqual)
  .map(cnpjFrom);

const formatCpf = (cpf: string): string => cpf.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
const formatCnpj = (cnpj: string): string =>
  cnpj.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, '$1.$2.$3/$4-$5');
const withLastDigitChangedBy = (document: string, delta: number): string =>
  document.slice(0, -1) + String((Number(document.slice(-1)) + delta) % 10);

describe('normaliseDocumentNumber', () => {
  it('accepts every CPF whose check digits are right, formatted or not, and stores its 11 digits', () => {
    fc.assert(
      fc.property(validCpf, (cpf) => {
        expect(normaliseDocumentNumber(cpf)).toBe(cpf);
        expect(normaliseDocumentNumber(formatCpf(cpf))).toBe(cpf);
      }),
    );
  });

  it('accepts every CNPJ whose check digits are right, formatted or not, and stores its 14 digits', () => {
    fc.assert(
      fc.property(validCnpj, (cnpj) => {
        expect(normaliseDocumentNumber(cnpj)).toBe(cnpj);
        expect(normaliseDocumentNumber(formatCnpj(cnpj))).toBe(cnpj);
      }),
    );
  });

  it('rejects a CPF or CNPJ whose last check digit is wrong', () => {
    fc.assert(
      fc.property(fc.oneof(validCpf, validCnpj), fc.integer({ min: 1, max: 9 }), (document, delta) => {
        expect(normaliseDocumentNumber(withLastDigitChangedBy(document, delta))).toBeNull();
      }),
    );
  });

  it('accepts the published examples CPF 529.982.247-25 and CNPJ 11.222.333/0001-81', () => {
    expect(normaliseDocumentNumber('529.982.247-25')).toBe('52998224725');
    expect(normaliseDocumentNumber('11.222.333/0001-81')).toBe('11222333000181');
  });

  it('accepts the alphanumeric CNPJ example published by Receita Federal, upper-cased', () => {
    expect(normaliseDocumentNumber('12.abc.345/01de-35')).toBe('12ABC34501DE35');
  });

  it('rejects repeated-digit numbers even though their check digits add up', () => {
    expect(normaliseDocumentNumber('111.111.111-11')).toBeNull();
    expect(normaliseDocumentNumber('00000000000000')).toBeNull();
  });

  it('rejects wrong lengths, letters in a CPF and stray characters', () => {
    for (const text of [
      '5299822472',
      '529982247250',
      '52998224725A',
      '529.982.247_25',
      '',
      '1122233300018',
    ]) {
      expect(normaliseDocumentNumber(text)).toBeNull();
    }
  });
});
