import { maskedCnpj, maskedCpf, payerName, pixPayerOf } from '../src/domain/payer';

describe('a PIX payer as the PSP lists it, masked before it leaves the adapter', () => {
  test.each([
    [
      'a bare CPF',
      { cpf: '12345678909', nome: 'Maria Souza' },
      { name: 'Maria Souza', document_masked: '***.456.789-**' },
    ],
    [
      'a formatted CPF',
      { cpf: '123.456.789-09', nome: 'Maria' },
      { name: 'Maria', document_masked: '***.456.789-**' },
    ],
    [
      'a bare CNPJ',
      { cnpj: '11222333000181', nome: 'Padaria Ltda' },
      { name: 'Padaria Ltda', document_masked: '**.222.333/0001-**' },
    ],
    [
      'a formatted CNPJ',
      { cnpj: '11.222.333/0001-81', nome: 'Padaria Ltda' },
      { name: 'Padaria Ltda', document_masked: '**.222.333/0001-**' },
    ],
    [
      'an alphanumeric CNPJ',
      { cnpj: '12abc34501de35', nome: 'Loja' },
      { name: 'Loja', document_masked: '**.ABC.345/01DE-**' },
    ],
    ['a name alone', { nome: 'Maria' }, { name: 'Maria', document_masked: null }],
    ['a CPF alone', { cpf: '12345678909' }, { name: null, document_masked: '***.456.789-**' }],
  ])('%s', (_case, pagador, expected) => {
    expect(pixPayerOf(pagador)).toEqual(expected);
  });

  test.each([
    ['no pagador', undefined],
    ['null', null],
    ['a string', 'Maria 12345678909'],
    ['an array', [{ cpf: '12345678909' }]],
    ['an empty object', {}],
    ['fields that are not text', { cpf: 12345678909, nome: { first: 'Maria' } }],
    ['a blank name and no document', { nome: ' \u0000\t\u202e ' }],
  ])('reports nobody for %s', (_case, pagador) => {
    expect(pixPayerOf(pagador)).toBeNull();
  });

  test.each([
    ['non-digits', 'abcdefghijk'],
    ['a NUL inside', '123456\u000078909'],
    ['too few digits', '1234567890'],
    ['too many digits', '123456789090'],
    ['a CNPJ given as CPF', '11222333000181'],
    ['a huge value', '1'.repeat(1_000_000)],
    ['digits of another script', '١٢٣٤٥٦٧٨٩٠٩'],
  ])('a CPF of %s is no document', (_case, cpf) => {
    expect(maskedCpf(cpf)).toBeNull();
    expect(pixPayerOf({ cpf, nome: 'Maria' })).toEqual({ name: 'Maria', document_masked: null });
  });

  test.each([
    ['letters in its check digits', '12ABC34501DEAB'],
    ['a NUL inside', '1122233300\u00000181'],
    ['punctuation of another kind', '11*222*333*0001*81'],
  ])('a CNPJ with %s is no document', (_case, cnpj) => {
    expect(maskedCnpj(cnpj)).toBeNull();
  });

  test('a name loses control and format characters (NUL, bidi overrides), keeps accents, and is cut at 200', () => {
    expect(payerName('  José\u0000 da\u202e\u200b  Conceição\u0007 ')).toBe('José da Conceição');
    expect(payerName('\ud800Ana')).toBe('Ana');
    const huge = payerName('Â'.repeat(1_000_000));
    expect(huge).toBe('Â'.repeat(200));
    // Cut by what the message contract counts (UTF-16 units), never inside a character.
    expect(payerName('😀'.repeat(300))).toBe('😀'.repeat(100));
    expect(payerName(`${'a'.repeat(199)}😀`)).toBe('a'.repeat(199));
  });

  test('the whole document never appears in what is kept', () => {
    const kept = JSON.stringify(pixPayerOf({ cpf: '98765432100', nome: 'Ana' }));
    expect(kept).not.toContain('98765432100');
    expect(kept).toContain('***.654.321-**');
  });
});
