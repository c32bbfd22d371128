import { encodeTlv, parseTlv } from './tlv';

const PIX_GUI = 'br.gov.bcb.pix';
const CRC_FIELD_PREFIX = '6304';
const MAX_NAME_LENGTH = 25;
const MAX_CITY_LENGTH = 15;
// ID 26 holds at most 99 characters: GUI (0014br.gov.bcb.pix = 18) + sub-ID 25 header (4) leaves 77.
const MAX_LOCATION_LENGTH = 77;

export interface DynamicBrCodeInput {
  /** The cob location as the PSP returns it; a leading `https://` is dropped, as BR Codes carry it scheme-less. */
  location: string;
  merchantName: string;
  merchantCity: string;
}

export interface ParsedBrCode {
  /** Top-level EMV fields by ID, e.g. `59` = merchant name. */
  fields: ReadonlyMap<string, string>;
  /** Sub-fields of ID 26 (merchant account information). */
  merchantAccount: ReadonlyMap<string, string>;
  /** Sub-fields of ID 62 (additional data). */
  additionalData: ReadonlyMap<string, string>;
}

export type BrCodeParseResult = { ok: true; brCode: ParsedBrCode } | { ok: false; reason: string };
export type BrCodeVerification = { ok: true; brCode: ParsedBrCode } | { ok: false; reason: string };

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) as 4 upper-case hex digits. */
export function crc16CcittFalse(data: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(data)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

export function buildDynamicBrCode(input: DynamicBrCodeInput): string {
  const location = stripScheme(input.location);
  if (location.length === 0 || location.length > MAX_LOCATION_LENGTH) {
    throw new RangeError(`cob location must have 1 to ${MAX_LOCATION_LENGTH} characters without scheme`);
  }
  const merchantName = toBrCodeText(input.merchantName, MAX_NAME_LENGTH, 'merchantName');
  const merchantCity = toBrCodeText(input.merchantCity, MAX_CITY_LENGTH, 'merchantCity');
  const payload = [
    encodeTlv('00', '01'),
    encodeTlv('01', '12'),
    encodeTlv('26', encodeTlv('00', PIX_GUI) + encodeTlv('25', location)),
    encodeTlv('52', '0000'),
    encodeTlv('53', '986'),
    encodeTlv('58', 'BR'),
    encodeTlv('59', merchantName),
    encodeTlv('60', merchantCity),
    // A dynamic BR Code carries no txid of its own: the payer's PSP reads it from the location.
    encodeTlv('62', encodeTlv('05', '***')),
  ].join('');
  const withCrcHeader = payload + CRC_FIELD_PREFIX;
  return withCrcHeader + crc16CcittFalse(withCrcHeader);
}

export function parseBrCode(code: string): BrCodeParseResult {
  const top = parseTlv(code);
  if (!top.ok) return top;
  const last = top.fields[top.fields.length - 1];
  if (last?.id !== '63' || last.value.length !== 4) return { ok: false, reason: 'CRC field 63 is not last' };
  const expectedCrc = crc16CcittFalse(code.slice(0, -4));
  if (last.value.toUpperCase() !== expectedCrc) {
    return { ok: false, reason: `CRC mismatch: code has ${last.value}, computed ${expectedCrc}` };
  }
  const fields = new Map(top.fields.map((field) => [field.id, field.value]));
  if (fields.get('00') !== '01') return { ok: false, reason: 'payload format indicator 00 is not "01"' };
  const merchantAccount = parseTemplate(fields.get('26') ?? '');
  const additionalData = parseTemplate(fields.get('62') ?? '');
  if (!merchantAccount.ok) return { ok: false, reason: `field 26: ${merchantAccount.reason}` };
  if (!additionalData.ok) return { ok: false, reason: `field 62: ${additionalData.reason}` };
  return {
    ok: true,
    brCode: { fields, merchantAccount: merchantAccount.values, additionalData: additionalData.values },
  };
}

/** Checks a PSP-provided pixCopiaECola before we show it to a payer: intact, a Pix code, pointing at our cob. */
export function verifyPspBrCode(code: string, expectedLocation: string): BrCodeVerification {
  const parsed = parseBrCode(code);
  if (!parsed.ok) return parsed;
  const { brCode } = parsed;
  // PSPs publish the GUI in either case (Efí uses upper case); the manual compares it case-insensitively.
  if (brCode.merchantAccount.get('00')?.toLowerCase() !== PIX_GUI) {
    return { ok: false, reason: `GUI is not ${PIX_GUI}` };
  }
  const location = brCode.merchantAccount.get('25');
  if (location === undefined) return { ok: false, reason: 'no location (26.25): not a dynamic BR Code' };
  if (!sameLocation(location, expectedLocation)) {
    return { ok: false, reason: `location ${location} differs from cob location ${expectedLocation}` };
  }
  if (brCode.fields.get('53') !== '986') return { ok: false, reason: 'currency 53 is not BRL (986)' };
  return { ok: true, brCode };
}

function parseTemplate(
  value: string,
): { ok: true; values: ReadonlyMap<string, string> } | { ok: false; reason: string } {
  const parsed = parseTlv(value);
  if (!parsed.ok) return parsed;
  return { ok: true, values: new Map(parsed.fields.map((field) => [field.id, field.value])) };
}

/** Whether two PSP locations are the same URL, one maybe with `https://` and the other without. */
export function sameLocation(a: string, b: string): boolean {
  return stripScheme(a) === stripScheme(b);
}

function stripScheme(location: string): string {
  return location.replace(/^https?:\/\//i, '');
}

/** BR Code text fields are ASCII: accents are stripped, anything else unprintable removed. */
function toBrCodeText(text: string, maxLength: number, name: string): string {
  const ascii = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, maxLength)
    .trim();
  if (ascii.length === 0) throw new RangeError(`${name} has no ASCII characters`);
  return ascii;
}
