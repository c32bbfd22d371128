import { TEXT_LIMITS } from '@gateway/contracts';
import { parseCheckoutInput } from '../src/domain/checkout-input';

const validBody = (): Record<string, unknown> => ({
  product_id: 'prod_abcdefghijklmnopqrstuvwx',
  return_url: 'https://loja.example.com/obrigado?pedido=1',
  cancel_url: 'http://localhost:3000/carrinho',
});

describe('parseCheckoutInput', () => {
  it('accepts the three required fields alone, with the optional ones null', () => {
    expect(parseCheckoutInput(validBody())).toEqual({
      ok: true,
      value: { ...validBody(), title: null, slug: null, metadata: null },
    });
  });

  it('keeps a trimmed title, a custom slug and JSON metadata', () => {
    const result = parseCheckoutInput({
      ...validBody(),
      title: '  Curso de Violão ',
      slug: 'curso-violao',
      metadata: '{"campanha":"black-friday"}',
    });

    expect(result).toEqual({
      ok: true,
      value: {
        ...validBody(),
        title: 'Curso de Violão',
        slug: 'curso-violao',
        metadata: '{"campanha":"black-friday"}',
      },
    });
  });

  it('lists every missing required field, counting null and blank strings as missing', () => {
    expect(parseCheckoutInput({ return_url: null, cancel_url: '   ' })).toEqual({
      ok: false,
      missingFields: ['product_id', 'return_url', 'cancel_url'],
      invalidFields: [],
    });
  });

  it.each(['ftp://loja.example.com/ok', 'javascript:alert(1)', '/obrigado', 'loja.example.com', 'https://'])(
    'rejects the return url %j',
    (url) => {
      expect(parseCheckoutInput({ ...validBody(), return_url: url })).toEqual({
        ok: false,
        missingFields: [],
        invalidFields: ['return_url'],
      });
    },
  );

  it('reports missing and invalid fields together', () => {
    const result = parseCheckoutInput({
      cancel_url: 'https://loja.example.com/' + 'a'.repeat(TEXT_LIMITS.url),
      return_url: 'https://loja.example.com/ok',
      title: '',
      slug: 'Slug Inválido',
      metadata: 'not json',
    });

    expect(result).toEqual({
      ok: false,
      missingFields: ['product_id'],
      invalidFields: ['cancel_url', 'title', 'slug', 'metadata'],
    });
  });

  it('rejects fields of the wrong type, such as metadata sent as an object', () => {
    const result = parseCheckoutInput({ ...validBody(), product_id: 7, metadata: { campanha: 'x' } });

    expect(result).toEqual({ ok: false, missingFields: [], invalidFields: ['product_id', 'metadata'] });
  });
});
