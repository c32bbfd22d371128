/**
 * Minimal dynamic BR Code builder (Manual de Padrões para Iniciação do Pix). The simulator stands in for a bank,
 * so it keeps its own encoder instead of sharing the gateway's: a bug on one side must not hide on the other.
 */
export function dynamicBrCode(location: string, merchantName: string, merchantCity: string): string {
  const payload =
    field('00', '01') +
    field('01', '12') +
    field('26', field('00', 'br.gov.bcb.pix') + field('25', location)) +
    field('52', '0000') +
    field('53', '986') +
    field('58', 'BR') +
    field('59', merchantName.slice(0, 25)) +
    field('60', merchantCity.slice(0, 15)) +
    field('62', field('05', '***')) +
    '6304';
  return payload + crc16(payload);
}

function field(id: string, value: string): string {
  return id + String(value.length).padStart(2, '0') + value;
}

function crc16(data: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(data, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}
