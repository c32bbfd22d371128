import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** Customers are Brazilian by default: a national number such as `(11) 91234-5678` is read as BR. */
const DEFAULT_COUNTRY = 'BR';
/** Only what people type around a number; letters or extensions are rejected rather than guessed at. */
const PHONE_CHARACTERS = /^\+?[0-9\s().-]+$/;

/** The number in E.164 (`+5511912345678`), or null when it is not a valid phone number. */
export function toE164(text: string): string | null {
  const trimmed = text.trim();
  if (!PHONE_CHARACTERS.test(trimmed)) {
    return null;
  }
  const phone = parsePhoneNumberFromString(trimmed, DEFAULT_COUNTRY);
  return phone?.isValid() ? phone.number : null;
}
