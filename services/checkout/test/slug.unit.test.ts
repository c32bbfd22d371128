import fc from 'fast-check';
import { generatedSlug, isValidCustomSlug, randomSlugSuffix, slugify } from '../src/domain/slug';

describe('slugify', () => {
  it.each([
    ['Café & Pão de Queijo!', 'cafe-pao-de-queijo'],
    ['  Assinatura   PREMIUM -- 2025 ', 'assinatura-premium-2025'],
    ['Ação Promoção Coração', 'acao-promocao-coracao'],
    ['***', ''],
  ])('turns %j into %j', (text, slug) => {
    expect(slugify(text)).toBe(slug);
  });

  it('always yields at most 48 characters of [a-z0-9] words joined by single dashes', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const slug = slugify(text);
        expect(slug.length).toBeLessThanOrEqual(48);
        expect(slug === '' || /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)).toBe(true);
      }),
    );
  });

  it('cuts a long title without leaving a trailing dash', () => {
    const slug = slugify(`${'a'.repeat(47)} b`);

    expect(slug).toBe('a'.repeat(47));
  });
});

describe('generated slugs', () => {
  it('are the slugified title, a dash and the random suffix', () => {
    expect(generatedSlug('Curso de Violão', 'x7k2p9')).toBe('curso-de-violao-x7k2p9');
  });

  it('fall back to "checkout" when the title has nothing sluggable', () => {
    expect(generatedSlug('🎸🎸', 'x7k2p9')).toBe('checkout-x7k2p9');
  });

  it('take a 6-character suffix of [a-z0-9] from the injected random source', () => {
    const picks = [0, 25, 26, 35, 1, 2];
    const suffix = randomSlugSuffix(() => picks.shift()!);

    expect(suffix).toBe('az09bc');
  });

  it('are themselves valid custom slugs, whatever the title and random source', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 100 }),
        fc.infiniteStream(fc.integer({ min: 0, max: 35 })),
        (title, ints) => {
          const iterator = ints[Symbol.iterator]();
          const slug = generatedSlug(
            title,
            randomSlugSuffix(() => iterator.next().value as number),
          );
          expect(isValidCustomSlug(slug)).toBe(true);
        },
      ),
    );
  });
});

describe('isValidCustomSlug', () => {
  it.each(['minha-loja', 'promo2025', 'a1b', 'x'.repeat(64)])('accepts %j', (slug) => {
    expect(isValidCustomSlug(slug)).toBe(true);
  });

  it.each([
    'ab',
    'x'.repeat(65),
    'Minha-Loja',
    'minha--loja',
    '-loja',
    'loja-',
    'minha loja',
    'café',
    'a/b',
    'assets',
  ])('rejects %j', (slug) => {
    expect(isValidCustomSlug(slug)).toBe(false);
  });
});
