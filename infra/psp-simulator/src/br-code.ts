/**
 * Minimal dynamic BR Code builder (Manual de Padrões para Iniciação do Pix). The simulator stands in for a bank,
 * so it keeps its own encoder instead of sharing the gateway's: a bug on one side must not hide on the other.
 */
export function dynamicBrCode(location: string, merchantName: string, merchantCity: string): string {
  return withCrc(field('00', '01') + chargeFields(location) + merchantFields(merchantName, merchantCity));
}

/**
 * The BR Code of a recurrence (Pix Automático): its location in field 80 (`br.gov.bcb.pix`, `25` the URL), composed
 * with a charge's when one is given (journeys 3 and 4: the cob's or cobv's location in field 26, initiated once);
 * without one (journey 2), field 26 names the arrangement only, as the document's `recResponse3` does.
 */
export function recurrenceBrCode(
  recLocation: string,
  merchantName: string,
  merchantCity: string,
  chargeLocation?: string,
): string {
  return withCrc(
    field('00', '01') +
      (chargeLocation === undefined
        ? field('26', field('00', 'br.gov.bcb.pix'))
        : chargeFields(chargeLocation)) +
      merchantFields(merchantName, merchantCity) +
      field('80', field('00', 'br.gov.bcb.pix') + field('25', recLocation)),
  );
}

/** A dynamic charge's fields: initiated once (`01` = 12), its location in the Pix arrangement's field 26. */
function chargeFields(location: string): string {
  return field('01', '12') + field('26', field('00', 'br.gov.bcb.pix') + field('25', location));
}

/** The merchant's fields after the arrangement's (category, currency, country, name, city, no txid in the code). */
function merchantFields(merchantName: string, merchantCity: string): string {
  return (
    field('52', '0000') +
    field('53', '986') +
    field('58', 'BR') +
    field('59', merchantName.slice(0, 25)) +
    field('60', merchantCity.slice(0, 15)) +
    field('62', field('05', '***'))
  );
}

/** The payload closed by its CRC field (`63`, 4 hex digits over everything before them, `6304` included). */
function withCrc(fields: string): string {
  const payload = `${fields}6304`;
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
