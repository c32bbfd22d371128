/** Returns the stored form of a present field, or null when it is invalid. */
export type FieldNormaliser = (text: string) => string | null;

/** A body's text fields as `normaliseTextFields` read them; every list keeps the normalisers' order. */
export interface NormalisedTextFields<F extends string> {
  /** Each field's stored form; null when it is absent or invalid. */
  value: Record<F, string | null>;
  /** Required fields that are absent, null or blank. */
  missingFields: F[];
  /** Present fields that are not strings or that their normaliser refuses. */
  invalidFields: F[];
}

/**
 * Reads the fields of a create body that `normalisers` names, one normaliser each: an absent or null field stays
 * null (a `required` one is missing, and so is a required one left blank); any other field must be a string its
 * normaliser accepts. Fields the normalisers do not name are ignored.
 */
export function normaliseTextFields<F extends string>(
  body: Readonly<Record<string, unknown>>,
  normalisers: Readonly<Record<F, FieldNormaliser>>,
  required: readonly F[] = [],
): NormalisedTextFields<F> {
  const fields = Object.keys(normalisers) as F[];
  const value = Object.fromEntries(fields.map((field) => [field, null])) as Record<F, string | null>;
  const missingFields: F[] = [];
  const invalidFields: F[] = [];
  for (const field of fields) {
    const raw = body[field];
    const isRequired = required.includes(field);
    if (raw === undefined || raw === null || (isRequired && typeof raw === 'string' && raw.trim() === '')) {
      if (isRequired) missingFields.push(field);
      continue;
    }
    const normalised = typeof raw === 'string' ? normalisers[field](raw) : null;
    if (normalised === null) invalidFields.push(field);
    else value[field] = normalised;
  }
  return { value, missingFields, invalidFields };
}
