import {
  checkoutAssets,
  CHECKOUT_CONTENT_SECURITY_POLICY,
  formatBrl,
  renderCheckoutPage,
  renderErrorMessage,
  renderNotFoundPage,
  type CheckoutPageView,
} from '../src/http/checkout-page';

const view = (overrides: Partial<CheckoutPageView> = {}): CheckoutPageView => ({
  slug: 'curso-violao-x7k2p9',
  businessName: 'Estúdio Som',
  productName: 'Curso de violão',
  productDescription: '32 aulas em vídeo',
  title: 'Curso para iniciantes',
  priceCentavos: 123456,
  cancelUrl: 'https://loja.example.com/carrinho',
  rails: { pix: true, crypto: ['USDC', 'USDT', 'EURC'] },
  assetBase: '/c/assets',
  sandbox: false,
  ...overrides,
});

const ids = (html: string): string[] => [...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]!);

describe('renderCheckoutPage', () => {
  it('escapes hostile merchant, product, title and cancel url text instead of emitting markup', () => {
    const hostile = '<script>alert("x")</script>';
    const html = renderCheckoutPage(
      view({
        businessName: hostile,
        productName: `<img src=x onerror=alert(1)>`,
        productDescription: hostile,
        title: `"><svg onload=alert(1)>`,
        cancelUrl: 'https://loja.example.com/?a="><script>',
      }),
    );

    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<svg onload');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('href="https://loja.example.com/?a=&quot;&gt;&lt;script&gt;"');
  });

  it('shows business, product, title and the price formatted in reais', () => {
    const html = renderCheckoutPage(view({ priceCentavos: 123456 }));

    expect(html).toContain('Estúdio Som');
    expect(html).toContain('Curso de violão');
    expect(html).toContain('32 aulas em vídeo');
    expect(html).toContain('<h1 id="checkout-title">Curso para iniciantes</h1>');
    expect(html).toContain('<strong id="price">R$ 1.234,56</strong>');
  });

  it('offers only the enabled rails, each with a stable id and data attributes', () => {
    const html = renderCheckoutPage(view({ rails: { pix: false, crypto: ['USDT'] } }));

    expect(ids(html).filter((id) => id.startsWith('pay-'))).toEqual([
      'pay-crypto-usdt',
      'pay-title',
      'pay-instructions',
    ]);
    expect(html).toContain('id="pay-crypto-usdt" data-method="crypto" data-currency="usdt"');
    expect(html).not.toContain('data-method="pix"');
  });

  it('offers PIX first when it and stablecoins are enabled', () => {
    const html = renderCheckoutPage(view({ rails: { pix: true, crypto: ['EURC', 'USDC'] } }));

    expect(ids(html).filter((id) => /^pay-(pix|crypto)/.test(id))).toEqual([
      'pay-pix',
      'pay-crypto-eurc',
      'pay-crypto-usdc',
    ]);
  });

  it('says so when no payment method is enabled', () => {
    const html = renderCheckoutPage(view({ rails: { pix: false, crypto: [] } }));

    expect(html).toContain('Nenhuma forma de pagamento está disponível no momento.');
    expect(html).not.toContain('data-method=');
  });

  it('has every element the script drives, and the sessions url of this slug', () => {
    const html = renderCheckoutPage(view({ slug: 'minha-loja' }));

    expect(ids(html)).toEqual(
      expect.arrayContaining([
        'qr-code',
        'copia-e-cola',
        'copy-button',
        'open-wallet',
        'countdown',
        'status',
        'retry',
        'change-method',
        'cancel-link',
      ]),
    );
    expect(html).toContain('data-sessions-url="/c/minha-loja/sessions"');
    expect(html).toMatch(/<script src="\/c\/assets\/checkout\.js\?v=[0-9a-f]{12}" defer><\/script>/);
  });

  it('is Portuguese and works under the strict CSP: no inline script, style or event handler', () => {
    const html = renderCheckoutPage(view());

    expect(html).toContain('<html lang="pt-BR">');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\/(?!loja\.example\.com)/);
  });

  it('says it is a test in sandbox, and nothing of the kind in production', () => {
    expect(renderCheckoutPage(view({ sandbox: true }))).toContain('id="sandbox-badge"');
    expect(renderCheckoutPage(view({ sandbox: false }))).not.toMatch(/sandbox|testes/i);
  });

  it('links its own icon on every page', () => {
    for (const html of [renderCheckoutPage(view()), renderNotFoundPage()]) {
      expect(html).toMatch(
        /<link rel="icon" type="image\/svg\+xml" href="\/c\/assets\/favicon\.svg\?v=[0-9a-f]{12}">/,
      );
    }
  });

  it('leaves out the cancel link when the url is not http(s)', () => {
    const html = renderCheckoutPage(view({ cancelUrl: 'javascript:alert(1)' }));

    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('id="cancel-link"');
  });
});

describe('renderNotFoundPage', () => {
  it('is a Portuguese page without the payment script', () => {
    const html = renderNotFoundPage();

    expect(html).toContain('<html lang="pt-BR">');
    expect(html).toContain('<h1>Checkout não encontrado</h1>');
    expect(html).toMatch(/href="\/c\/assets\/checkout\.css\?v=/);
    expect(html).not.toContain('<script');
  });
});

describe('renderErrorMessage', () => {
  it('explains a missing fee rule in words a buyer understands', () => {
    expect(renderErrorMessage('NO_FEE_RULE')).toBe(
      'Este método de pagamento ainda não está disponível para esta loja.',
    );
  });

  it('falls back to a generic message for unknown codes, including Object.prototype names', () => {
    expect(renderErrorMessage('INTERNAL_ERROR')).toBe(renderErrorMessage('SOMETHING_NEW'));
    expect(renderErrorMessage('toString')).toBe(renderErrorMessage('SOMETHING_NEW'));
  });
});

describe('formatBrl', () => {
  it.each([
    [100, 'R$ 1,00'],
    [5, 'R$ 0,05'],
    [123456789, 'R$ 1.234.567,89'],
  ])('formats %i centavos as %s', (centavos, text) => {
    expect(formatBrl(centavos)).toBe(text);
  });
});

describe('checkout assets', () => {
  it('serve the stylesheet and script with their content types and a version that follows the content', () => {
    expect(checkoutAssets['checkout.css'].contentType).toBe('text/css; charset=utf-8');
    expect(checkoutAssets['checkout.css'].body).toContain('.checkout');
    expect(checkoutAssets['checkout.js'].contentType).toBe('text/javascript; charset=utf-8');
    expect(checkoutAssets['checkout.js'].body).toContain('data-sessions-url');
    expect(checkoutAssets['checkout.js'].version).not.toBe(checkoutAssets['checkout.css'].version);
    expect(checkoutAssets['favicon.svg'].contentType).toBe('image/svg+xml; charset=utf-8');
    expect(checkoutAssets['favicon.svg'].body).toMatch(/^<svg /);
  });

  it('come with a CSP that allows nothing inline and no framing', () => {
    expect(CHECKOUT_CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CHECKOUT_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CHECKOUT_CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
  });
});
