/** EMV MPM data objects: two-digit ID, two-digit length, value. */
export interface TlvField {
  id: string;
  value: string;
}

export type TlvParseResult = { ok: true; fields: TlvField[] } | { ok: false; reason: string };

export function encodeTlv(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new RangeError(`EMV id must be two digits, got "${id}"`);
  if (value.length > 99) throw new RangeError(`EMV field ${id} is longer than 99 characters`);
  return `${id}${value.length.toString().padStart(2, '0')}${value}`;
}

export function parseTlv(data: string): TlvParseResult {
  const fields: TlvField[] = [];
  let position = 0;
  while (position < data.length) {
    const header = data.slice(position, position + 4);
    if (!/^\d{4}$/.test(header)) return { ok: false, reason: `malformed EMV header at position ${position}` };
    const id = header.slice(0, 2);
    const length = Number(header.slice(2));
    const value = data.slice(position + 4, position + 4 + length);
    if (value.length !== length) return { ok: false, reason: `EMV field ${id} is truncated` };
    if (fields.some((field) => field.id === id)) return { ok: false, reason: `EMV field ${id} is repeated` };
    fields.push({ id, value });
    position += 4 + length;
  }
  return { ok: true, fields };
}
