import {
  STATEMENT_HEADER,
  balanceRow,
  centavosText,
  csvField,
  neutraliseFormula,
} from '../src/http/statement-csv';

describe('the statement CSV', () => {
  test.each([
    [0, '0.00'],
    [5, '0.05'],
    [-5, '-0.05'],
    [100, '1.00'],
    [-123_456, '-1234.56'],
    [999_999_999_999, '9999999999.99'],
    [Number.MAX_SAFE_INTEGER, '90071992547409.91'],
    [-Number.MAX_SAFE_INTEGER, '-90071992547409.91'],
  ])('%d centavos are written %s, exactly', (centavos, text) => {
    expect(centavosText(centavos)).toBe(text);
  });

  test.each([
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['"', '""""'],
    ['one\ntwo', '"one\ntwo"'],
    ['one\r\ntwo', '"one\r\ntwo"'],
    ['a\rb', '"a\rb"'],
  ])('the field %j is written %j (RFC 4180)', (text, field) => {
    expect(csvField(text)).toBe(field);
  });

  test.each([
    ['=1+1', "'=1+1"],
    ['+55 11 9999', "'+55 11 9999"],
    ['-1', "'-1"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
    ['Pedido =1', 'Pedido =1'],
    ["'já protegido", "'já protegido"],
    ['', ''],
  ])('the description %j is written %j, never as a formula', (text, neutralised) => {
    expect(neutraliseFormula(text)).toBe(neutralised);
  });

  test('the header and the balance rows have the same nine fields', () => {
    expect(STATEMENT_HEADER).toBe(
      'id,created_at,type,source_id,amount_brl,fee_brl,net_brl,available_on,description\r\n',
    );
    expect(balanceRow('opening_balance_brl', -1)).toBe('opening_balance_brl,-0.01,,,,,,,\r\n');
    expect(balanceRow('closing_balance_brl', 4200)).toBe('closing_balance_brl,42.00,,,,,,,\r\n');
  });
});
