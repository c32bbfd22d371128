import { MAX_ID_LENGTH, TEXT_LIMITS, isJsonText, type CreateCheckout } from '@gateway/contracts';
import { isValidCustomSlug } from './slug';

/** The create-checkout body after validation; an absent optional field is null. */
export type CheckoutInput = Omit<CreateCheckout, 'business_id'>;

/** Field names, in contract order, for MISSING_FIELDS (reported first) and INVALID_FIELDS. */
export type CheckoutInputResult =
  { ok: true; value: CheckoutInput } | { ok: false; missingFields: string[]; invalidFields: string[] };

type FieldName = keyof CheckoutInput;
/** Returns the stored form of a present field, or null when it is invalid. */
type Normaliser = (text: string) => string | null;

const REQUIRED_FIELDS: readonly FieldName[] = ['product_id', 'return_url', 'cancel_url'];

const NORMALISERS: Readonly<Record<FieldName, Normaliser>> = {
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
  const value: Record<FieldName, string | null> = {
    product_id: null,
    return_url: null,
    cancel_url: null,
    title: null,
    slug: null,
    metadata: null,
  };
  const missingFields: string[] = [];
  const invalidFields: string[] = [];
  for (const field of Object.keys(NORMALISERS) as FieldName[]) {
    const raw = body[field];
    const required = REQUIRED_FIELDS.includes(field);
    if (raw === undefined || raw === null || (required && typeof raw === 'string' && raw.trim() === '')) {
      if (required) {
        missingFields.push(field);
      }
      continue;
    }
    const normalised = typeof raw === 'string' ? NORMALISERS[field](raw) : null;
    if (normalised === null) {
      invalidFields.push(field);
    } else {
      value[field] = normalised;
    }
  }
  if (missingFields.length > 0 || invalidFields.length > 0) {
    return { ok: false, missingFields, invalidFields };
  }
  // Every required field was either stored or reported above, so none is null here.
  return { ok: true, value: value as CheckoutInput };
}

function trimmedWithin(text: string, maxLength: number): string | null {
  const trimmed = text.trim();
  return trimmed.length > 0 && trimmed.length <= maxLength ? trimmed : null;
}

function httpUrl(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.length > TEXT_LIMITS.url || !URL.canParse(trimmed)) {
    return null;
  }
  const { protocol } = new URL(trimmed);
  return protocol === 'https:' || protocol === 'http:' ? trimmed : null;
}
