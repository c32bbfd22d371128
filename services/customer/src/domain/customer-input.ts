import { isJsonText, normaliseTextFields, type FieldNormaliser } from '@gateway/contracts';
import { normaliseDocumentNumber } from './document-number';
import { normaliseName } from './name';
import { normaliseEmail } from './email';
import { toE164 } from './phone-number';

/** The create-customer body after validation, ready to store; an absent field is null. */
export interface CustomerInput {
  name: string | null;
  email: string | null;
  phone_number: string | null;
  document_number: string | null;
  metadata: string | null;
}

export type CustomerInputResult =
  | { ok: true; value: CustomerInput }
  | { ok: false; /** Names for the INVALID_FIELDS message, in contract order. */ invalidFields: string[] };

const NORMALISERS: Readonly<Record<keyof CustomerInput, FieldNormaliser>> = {
  name: normaliseName,
  email: normaliseEmail,
  phone_number: toE164,
  document_number: normaliseDocumentNumber,
  metadata: (text) => (isJsonText(text) ? text : null),
};

/**
 * Validates and normalises a create-customer body. Every field is optional (null counts as absent); a present
 * field must be a string in its format: a name (spaces collapsed), email, phone number (stored E.164), CPF/CNPJ (stored without
 * punctuation) or JSON text. Fields not in the contract are ignored.
 */
export function parseCustomerInput(body: Readonly<Record<string, unknown>>): CustomerInputResult {
  const { value, invalidFields } = normaliseTextFields(body, NORMALISERS);
  return invalidFields.length === 0 ? { ok: true, value } : { ok: false, invalidFields };
}
