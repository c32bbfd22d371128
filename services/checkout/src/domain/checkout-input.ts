import {
  MAX_ID_LENGTH,
  TEXT_LIMITS,
  isJsonText,
  normaliseTextFields,
  type CreateCheckout,
  type FieldNormaliser,
} from '@gateway/contracts';
import { isValidCustomSlug } from './slug';

/** The create-checkout body after validation; an absent optional field is null. */
export type CheckoutInput = Omit<CreateCheckout, 'business_id'>;

/** Field names, in contract order, for MISSING_FIELDS (reported first) and INVALID_FIELDS. */
export type CheckoutInputResult =
  { ok: true; value: CheckoutInput } | { ok: false; missingFields: string[]; invalidFields: string[] };

type FieldName = keyof CheckoutInput;

const REQUIRED_FIELDS: readonly FieldName[] = ['product_id', 'return_url', 'cancel_url'];

const NORMALISERS: Readonly<Record<FieldName, FieldNormaliser>> = {
  product_id: (text) => trimmedWithin(text, MAX_ID_LENGTH),
  return_url: httpUrl,
  cancel_url: httpUrl,
  title: (text) => trimmedWithin(text, TEXT_LIMITS.title),
  slug: (text) => (isValidCustomSlug(text) ? text : null),
  metadata: (text) => (isJsonText(text) ? text : null),
};

/**
 * Validates a create-checkout body: `product_id`, `return_url` and `cancel_url` are required (absent, null or
 * blank counts as missing); the urls must be absolute http(s) URLs; `title`, `slug` and `metadata` are optional
 * strings, the slug in slug form and the metadata JSON text. Fields not in the contract are ignored.
 */
export function parseCheckoutInput(body: Readonly<Record<string, unknown>>): CheckoutInputResult {
  const { value, missingFields, invalidFields } = normaliseTextFields(body, NORMALISERS, REQUIRED_FIELDS);
  if (missingFields.length > 0 || invalidFields.length > 0) {
    return { ok: false, missingFields, invalidFields };
  }
  // Every required field was either stored or reported above, so none is null here.
  return { ok: true, value: value as CheckoutInput };
}

/** The text trimmed, or null when it is blank or longer than `maxLength`. */
export function trimmedWithin(text: string, maxLength: number): string | null {
  const trimmed = text.trim();
  return trimmed.length > 0 && trimmed.length <= maxLength ? trimmed : null;
}

/** The text as an absolute http(s) URL within the contract's length, or null. */
export function httpUrl(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.length > TEXT_LIMITS.url || !URL.canParse(trimmed)) {
    return null;
  }
  const { protocol } = new URL(trimmed);
  return protocol === 'https:' || protocol === 'http:' ? trimmed : null;
}
