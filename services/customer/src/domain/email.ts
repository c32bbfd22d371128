const MAX_EMAIL_LENGTH = 254;
const MAX_LOCAL_PART_LENGTH = 64;
const MAX_LABEL_LENGTH = 63;
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const TOP_LEVEL_LABEL = /^(?:[a-z]{2,}|xn--[a-z0-9-]+)$/;

/**
 * The trimmed address with its domain lower-cased, or null when it is not a plain `local@domain.tld` address.
 * The local part keeps its case: RFC 5321 lets the receiving server treat it as case-sensitive.
 */
export function normaliseEmail(text: string): string | null {
  const trimmed = text.trim();
  const at = trimmed.lastIndexOf('@');
  if (trimmed.length > MAX_EMAIL_LENGTH || at < 1) {
    return null;
  }
  const localPart = trimmed.slice(0, at);
  const domain = trimmed.slice(at + 1).toLowerCase();
  return isValidLocalPart(localPart) && isValidDomain(domain) ? `${localPart}@${domain}` : null;
}

function isValidLocalPart(localPart: string): boolean {
  return localPart.length <= MAX_LOCAL_PART_LENGTH && LOCAL_PART.test(localPart);
}

function isValidDomain(domain: string): boolean {
  const labels = domain.split('.');
  const topLevel = labels[labels.length - 1] ?? '';
  return (
    labels.length >= 2 &&
    labels.every((label) => label.length <= MAX_LABEL_LENGTH && DOMAIN_LABEL.test(label)) &&
    TOP_LEVEL_LABEL.test(topLevel)
  );
}
