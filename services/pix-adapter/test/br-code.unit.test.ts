import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { isDynamicPix, hasError, parsePix } from 'pix-utils';
import { buildDynamicBrCode, crc16CcittFalse, parseBrCode, verifyPspBrCode } from '../src/domain/br-code';
import { TXID_LENGTH, generateTxid, isValidTxid } from '../src/domain/txid';

/** Published BR Codes with the CRC their authors computed independently of us. */
const GOLDEN = {
  // BCB, Manual de Padrões para Iniciação do Pix, dynamic example.
  bcbDynamic:
    '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4',
  // BCB, Manual de Padrões para Iniciação do Pix, static example.
  bcbStatic:
    '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D',
  // thalesog/pix-utils tests/emvCodes.ts, DYNAMIC_TEST_EMV.
  pixUtilsDynamic:
    '00020126740014br.gov.bcb.pix2552payload.psp.com/3ec9d2f9-5f03-4e0e-820d-63a81e769e875204000053039865802BR5914Thales Ogliari6015SAO MIGUEL DO O62070503***63040C64',
  // thalesog/pix-utils tests/emvCodes.ts, STATIC_TEST_EMV (with amount and info).
  pixUtilsStatic:
    '00020126510014br.gov.bcb.pix0115thalesog@me.com0210Pedido 123520400005303986540510.005802BR5914Thales Ogliari6015SAO MIGUEL DO O62070503***63044367',
  // imobanco/bb-wrapper tests, a Banco do Brasil location; its CRC has a leading zero.
  bbDynamic:
    '00020101021226850014br.gov.bcb.pix2563qrcodepix.bb.com.br/pix/v2/e1503bee-684b-4952-ade3-78c0a47e1d0e5204000053039865802BR5908IMOBANCO6005NATAL62070503***63040965',
};

// Portuguese letters and the ASCII letter a payer expects to see instead.
const UNACCENTED: Record<string, string> = {
  á: 'a',
  ã: 'a',
  â: 'a',
  à: 'a',
  é: 'e',
  ê: 'e',
  í: 'i',
  ó: 'o',
  ô: 'o',
  õ: 'o',
  ú: 'u',
  ü: 'u',
  ç: 'c',
  Ç: 'C',
  Ã: 'A',
  É: 'E',
};

function expectedText(text: string, maxLength: number): string {
  const ascii = [...text].map((char) => UNACCENTED[char] ?? char).join('');
  return ascii.trim().slice(0, maxLength).trim();
}

describe('CRC16-CCITT-FALSE', () => {
  it('gives the catalogued check value for "123456789"', () => {
    expect(crc16CcittFalse('123456789')).toBe('29B1');
  });

  it.each(Object.entries(GOLDEN))('reproduces the published CRC of %s', (_name, code) => {
    expect(crc16CcittFalse(code.slice(0, -4))).toBe(code.slice(-4));
  });

  it('keeps leading zeros as four hex digits', () => {
    expect(crc16CcittFalse(GOLDEN.bbDynamic.slice(0, -4))).toBe('0965');
  });
});

describe('buildDynamicBrCode', () => {
  it('reproduces the dynamic example of the BCB manual byte for byte', () => {
    const code = buildDynamicBrCode({
      location: 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
    });
    expect(code).toBe(GOLDEN.bcbDynamic);
  });

  it('reproduces the Banco do Brasil dynamic code when the location carries an https scheme', () => {
    const code = buildDynamicBrCode({
      location: 'https://qrcodepix.bb.com.br/pix/v2/e1503bee-684b-4952-ade3-78c0a47e1d0e',
      merchantName: 'IMOBANCO',
      merchantCity: 'NATAL',
    });
    expect(code).toBe(GOLDEN.bbDynamic);
  });

  it('strips accents and truncates name to 25 and city to 15 characters', () => {
    const code = buildDynamicBrCode({
      location: 'psp.example/loc/1',
      merchantName: 'Padaria São João da Conceição Ltda',
      merchantCity: 'São José dos Campos Paulista',
    });
    const parsed = parseBrCode(code);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.brCode.fields.get('59')).toBe('Padaria Sao Joao da Conce');
    expect(parsed.brCode.fields.get('60')).toBe('Sao Jose dos Ca');
  });

  it('refuses a location that cannot fit in field 26', () => {
    expect(() =>
      buildDynamicBrCode({ location: `psp.example/${'x'.repeat(70)}`, merchantName: 'A', merchantCity: 'B' }),
    ).toThrow(RangeError);
  });

  it('refuses a merchant name with no ASCII letters left', () => {
    expect(() =>
      buildDynamicBrCode({ location: 'psp.example/1', merchantName: '中文', merchantCity: 'B' }),
    ).toThrow(RangeError);
  });

  it('builds, for any name, city and location, a code pix-utils parses as the same dynamic Pix', () => {
    const text = fc
      .stringOf(fc.oneof(fc.char(), fc.constantFrom(...Object.keys(UNACCENTED))), {
        minLength: 1,
        maxLength: 40,
      })
      .filter((s) => s.trim().length > 0);
    const location = fc
      .tuple(fc.domain(), fc.uuid())
      .map(([host, id]) => `${host}/pix/v2/${id}`)
      .filter((l) => l.length <= 77);
    fc.assert(
      fc.property(text, text, location, (merchantName, merchantCity, loc) => {
        const code = buildDynamicBrCode({ location: loc, merchantName, merchantCity });
        const oracle = parsePix(code);
        if (hasError(oracle)) throw new Error(`pix-utils rejected ${code}: ${oracle.message}`);
        if (!isDynamicPix(oracle)) throw new Error(`pix-utils did not see a dynamic Pix in ${code}`);
        expect(oracle.url).toBe(loc);
        expect(oracle.merchantName).toBe(expectedText(merchantName, 25));
        expect(oracle.merchantCity).toBe(expectedText(merchantCity, 15));
        expect(code.slice(-4)).toBe(crc16CcittFalse(code.slice(0, -4)));
      }),
    );
  });
});

describe('parseBrCode', () => {
  it('reads the fields and templates of a published dynamic code', () => {
    const parsed = parseBrCode(GOLDEN.pixUtilsDynamic);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.brCode.merchantAccount.get('25')).toBe(
      'payload.psp.com/3ec9d2f9-5f03-4e0e-820d-63a81e769e87',
    );
    expect(parsed.brCode.fields.get('59')).toBe('Thales Ogliari');
    expect(parsed.brCode.additionalData.get('05')).toBe('***');
  });

  it('reads a static code with its Pix key and amount', () => {
    const parsed = parseBrCode(GOLDEN.pixUtilsStatic);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.brCode.merchantAccount.get('01')).toBe('thalesog@me.com');
    expect(parsed.brCode.fields.get('54')).toBe('10.00');
  });

  it('rejects a code whose CRC does not match', () => {
    const tampered = GOLDEN.bcbDynamic.replace('Fulano', 'Fulana');
    expect(parseBrCode(tampered)).toEqual({ ok: false, reason: expect.stringContaining('CRC mismatch') });
  });

  it('rejects a truncated code', () => {
    expect(parseBrCode(GOLDEN.bcbDynamic.slice(0, 60)).ok).toBe(false);
  });
});

describe('verifyPspBrCode', () => {
  const location = 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441';

  it('accepts a PSP code pointing at the cob location, with or without scheme', () => {
    expect(verifyPspBrCode(GOLDEN.bcbDynamic, location).ok).toBe(true);
    expect(verifyPspBrCode(GOLDEN.bcbDynamic, `https://${location}`).ok).toBe(true);
  });

  it('accepts the GUI in upper case, as some PSPs publish it', () => {
    const upper = GOLDEN.bcbDynamic.slice(0, -4).replace('br.gov.bcb.pix', 'BR.GOV.BCB.PIX');
    expect(verifyPspBrCode(upper + crc16CcittFalse(upper), location).ok).toBe(true);
  });

  it('rejects a code for another location', () => {
    const result = verifyPspBrCode(GOLDEN.pixUtilsDynamic, location);
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('differs') });
  });

  it('rejects a static code, which has no location', () => {
    expect(verifyPspBrCode(GOLDEN.bcbStatic, location)).toEqual({
      ok: false,
      reason: expect.stringContaining('not a dynamic'),
    });
  });

  it('rejects a code with a broken CRC', () => {
    expect(verifyPspBrCode(`${GOLDEN.bcbDynamic.slice(0, -4)}0000`, location).ok).toBe(false);
  });
});

describe('generateTxid', () => {
  it('makes 32 alphanumerics accepted by the API Pix txid pattern', () => {
    const txid = generateTxid(randomBytes);
    expect(txid).toHaveLength(TXID_LENGTH);
    expect(isValidTxid(txid)).toBe(true);
  });

  it('skips bytes that would bias the alphabet', () => {
    const sources = [new Uint8Array(32).fill(255), new Uint8Array(32).fill(0)];
    expect(generateTxid(() => sources.shift()!)).toBe('A'.repeat(32));
  });

  it('makes a different txid each time', () => {
    expect(new Set(Array.from({ length: 50 }, () => generateTxid(randomBytes))).size).toBe(50);
  });
});
