import { TEXT_LIMITS, type UpdateCheckout, type UpdateProduct } from '@gateway/contracts';
import { httpUrl, trimmedWithin } from './checkout-input';
import type { StoredCheckout, StoredProduct } from './records';

type Changes<T> = { ok: true; value: Partial<T> } | { ok: false; invalidFields: string[] };

/**
 * A checkout's changes as stored, from the fields an update gives (an absent field is left as it is): the title
 * trimmed (null or blank clears it), the urls absolute http(s) URLs, the status `active` or `inactive`.
 */
export function parseCheckoutChanges(command: UpdateCheckout): Changes<StoredCheckout> {
  const value: Partial<StoredCheckout> = {};
  const invalidFields: string[] = [];
  if (command.title !== undefined)
    value.title = command.title === null ? null : trimmedWithin(command.title, TEXT_LIMITS.title);
  for (const [field, key] of [
    ['return_url', 'returnUrl'],
    ['cancel_url', 'cancelUrl'],
  ] as const) {
    const given = command[field];
    if (given === undefined) continue;
    const url = httpUrl(given);
    if (url === null) invalidFields.push(field);
    else value[key] = url;
  }
  if (command.status !== undefined) value.status = command.status;
  return invalidFields.length > 0 ? { ok: false, invalidFields } : { ok: true, value };
}

/**
 * A product's changes as stored: the name trimmed and not blank, the description (null or blank clears it), the price,
 * the status `active` or `inactive`.
 */
export function parseProductChanges(command: UpdateProduct): Changes<StoredProduct> {
  const value: Partial<StoredProduct> = {};
  if (command.name !== undefined) {
    const name = command.name.trim();
    if (name.length === 0) return { ok: false, invalidFields: ['name'] };
    value.name = name;
  }
  if (command.description !== undefined)
    value.description = command.description === null ? null : command.description.trim() || null;
  if (command.price_centavos !== undefined) value.priceCentavos = command.price_centavos;
  if (command.status !== undefined) value.status = command.status;
  return { ok: true, value };
}
