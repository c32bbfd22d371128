import { hasCheckoutSlugShape } from '@gateway/contracts';

const MAX_SLUG_BASE_LENGTH = 48;
const SUFFIX_LENGTH = 6;
const SUFFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Used when a title has nothing sluggable in it (only symbols or emoji). */
const FALLBACK_SLUG_BASE = 'checkout';
/** The hosted page's assets live under `/c/assets`, so no checkout may own that path. */
const RESERVED_SLUGS: ReadonlySet<string> = new Set(['assets']);

/** A uniformly random integer in [0, exclusiveMax), e.g. node's `crypto.randomInt`. */
export type RandomInt = (exclusiveMax: number) => number;

/** `Café & Pão!` -> `cafe-pao`: accents stripped, lower case, only [a-z0-9] joined by single dashes, at most 48. */
export function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, MAX_SLUG_BASE_LENGTH)
    .replace(/-+$/, '');
}

/** The random part of a generated slug: 6 characters of [a-z0-9]. */
export function randomSlugSuffix(randomInt: RandomInt): string {
  return Array.from({ length: SUFFIX_LENGTH }, () => SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)]).join(
    '',
  );
}

/** The slug of a checkout created without one: its title (or product name) slugified, a dash, the random suffix. */
export function generatedSlug(titleOrProductName: string, randomSuffix: string): string {
  return `${slugify(titleOrProductName) || FALLBACK_SLUG_BASE}-${randomSuffix}`;
}

/** A caller-chosen slug must already be in slug form (contracts: 3 to 64 of [a-z0-9] in dash-separated words). */
export function isValidCustomSlug(slug: string): boolean {
  return hasCheckoutSlugShape(slug) && !RESERVED_SLUGS.has(slug);
}
