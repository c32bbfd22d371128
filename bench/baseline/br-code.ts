/** The PIX BR Code (EMV MPM) as the Central Bank's manual spells it, for both one-process yardsticks. */

function emv(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** CRC-16/CCITT-FALSE as 4 upper-case hex digits (field 63). */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** A static-amount PIX BR Code for a random txid (the naive server: no PSP, so no location). */
export function staticBrCode(merchantName: string, amountCentavos: number, txid: string): string {
  const payload =
    emv('00', '01') +
    emv('26', emv('00', 'br.gov.bcb.pix') + emv('01', 'pix@baseline.example')) +
    emv('52', '0000') +
    emv('53', '986') +
    emv('54', (amountCentavos / 100).toFixed(2)) +
    emv('58', 'BR') +
    emv('59', merchantName.slice(0, 25)) +
    emv('60', 'SAO PAULO') +
    emv('62', emv('05', txid)) +
    '6304';
  return payload + crc16(payload);
}

/** A dynamic BR Code pointing at a cob's location (scheme-less), as a charge registered at a PSP carries. */
export function dynamicBrCode(location: string, merchantName: string, merchantCity: string): string {
  const payload =
    emv('00', '01') +
    emv('01', '12') +
    emv('26', emv('00', 'br.gov.bcb.pix') + emv('25', location.replace(/^https?:\/\//, ''))) +
    emv('52', '0000') +
    emv('53', '986') +
    emv('58', 'BR') +
    emv('59', merchantName.slice(0, 25)) +
    emv('60', merchantCity.slice(0, 15)) +
    emv('62', emv('05', '***')) +
    '6304';
  return payload + crc16(payload);
}

/** Whether a BR Code the PSP sent has a good CRC and points at this location: then it is used as it is. */
export function pspCodeHolds(code: string, location: string): boolean {
  return (
    code.length > 4 &&
    code.slice(-8, -4) === '6304' &&
    crc16(code.slice(0, -4)) === code.slice(-4).toUpperCase() &&
    code.includes(location.replace(/^https?:\/\//, ''))
  );
}
