import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * The second factor: a time-based one-time password (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps, the parameters
 * every authenticator app reads from an `otpauth://` link), through the `otpauth` library (docs/adr/0029). A code is
 * accepted within one step either side of now (a phone's clock a little off), and once: the step it matched is stored,
 * and a code of that step or an earlier one is refused afterwards.
 */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of the current one a code may belong to. */
const TOTP_WINDOW = 1;
/** A secret of 160 bits, the HMAC-SHA1 block RFC 4226 recommends. */
export const TOTP_SECRET_BYTES = 20;

/** The name authenticator apps show above the codes. */
export const TOTP_ISSUER = 'Painel de pagamentos';

function totpOf(secretBase32: string, label = 'conta'): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new secret in base32 (as typed into an app by hand), from random bytes passed in. */
export function newTotpSecret(random: Buffer): string {
  if (random.length < TOTP_SECRET_BYTES)
    throw new Error(`a TOTP secret needs ${TOTP_SECRET_BYTES} random bytes`);
  return new Secret({ buffer: new Uint8Array(random).buffer }).base32;
}

/** The `otpauth://totp/...` link an app enrols from (the QR code's content), labelled with the person's e-mail. */
export function totpLink(secretBase32: string, email: string): string {
  return totpOf(secretBase32, email).toString();
}

/** The secret grouped by four characters, easier to type into an app by hand. */
export function groupedSecret(secretBase32: string): string {
  return secretBase32.replace(/(.{4})(?=.)/g, '$1 ');
}

/** A code as typed (spaces and dashes allowed), or null when it is not six digits. */
export function normaliseTotpCode(text: string): string | null {
  const code = text.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(code) ? code : null;
}

/** The step (30-second counter since the epoch) `code` belongs to, within the window around `now`, or null. */
export function matchingStep(secretBase32: string, code: string, now: Date): number | null {
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: now.getTime(), window: TOTP_WINDOW });
  if (delta === null) return null;
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: now.getTime() }) + delta;
}

/** The code of `secretBase32` at `now` (what an authenticator app shows). */
export function totpCodeAt(secretBase32: string, now: Date): string {
  return totpOf(secretBase32).generate({ timestamp: now.getTime() });
}

/** How many recovery codes a person gets at enrolment, each usable once instead of a code. */
export const RECOVERY_CODE_COUNT = 10;
/** Each code carries 80 random bits: 16 characters of base32, shown as four groups of four. */
export const RECOVERY_CODE_BYTES = 10;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** One recovery code, `ABCD-EFGH-IJKL-MNOP`, from RECOVERY_CODE_BYTES random bytes passed in. */
export function recoveryCodeFrom(random: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of random.subarray(0, RECOVERY_CODE_BYTES)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out.match(/.{4}/g)!.join('-');
}

/** A recovery code as typed (any case, spaces or dashes anywhere), or null when it cannot be one. */
export function normaliseRecoveryCode(text: string): string | null {
  const code = text.replace(/[\s-]/g, '').toUpperCase();
  return /^[A-Z2-7]{16}$/.test(code) ? code : null;
}

/**
 * A recovery code as stored: the SHA-256 of its normalised form. Each carries 80 random bits, so a fast hash is
 * enough (no one guesses 2^80); the codes themselves are shown once and never stored.
 */
export function recoveryCodeHash(code: string): string {
  return createHash('sha256')
    .update(normaliseRecoveryCode(code) ?? code)
    .digest('hex');
}
