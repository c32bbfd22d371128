import {
  cancelPayment,
  getCheckoutPage,
  getCheckoutSessionStatus,
  getPayment,
  newPublicId,
  startCheckoutSession,
  type CheckoutPage,
  type StartCheckoutSession,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { aCryptoPaymentView, aPixPaymentView } from '@gateway/testkit';
import {
  CHECKOUT_CONTENT_SECURITY_POLICY,
  checkoutAssets,
  renderErrorMessage,
} from '../src/http/checkout-page';
import { harnessWithMerchantForTheseTests, startHarness } from './support/harness';

describe('api gateway: hosted checkout pages', () => {
  const h = harnessWithMerchantForTheseTests('gw-page', {
    merchant: 'Estúdio Som & Cia',
    services: ['checkout', 'payment'],
  });
  const slug = 'curso-de-violao-x7k2p9';

  /** The checkout service's answer for `slug` (of the harness's merchant), NOT_FOUND for any other. */
  const checkoutPageOf =
    (businessId: string) =>
    async (query: { slug: string }): Promise<CheckoutPage> => {
      if (query.slug !== slug) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
      return {
        slug,
        business_id: businessId,
        business_name: 'nome antigo',
        product_name: 'Curso de violão',
        product_description: '32 aulas',
        title: 'Aprenda violão',
        price_centavos: 123456,
        cancel_url: 'https://loja.example.com/carrinho',
      };
    };

  beforeAll(() => {
    h.fakes.on(getCheckoutPage, checkoutPageOf(h.merchant.business_id));
  });

  const expectPageHeaders = (headers: Record<string, string>) => {
    expect(headers['content-security-policy']).toBe(CHECKOUT_CONTENT_SECURITY_POLICY);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');
  };

  test('the page renders the business name from the gateway, the price and every rail, under the CSP', async () => {
    const response = await h.http.get(`/c/${slug}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expectPageHeaders(response.headers);
    expect(response.text).toContain('Estúdio Som &amp; Cia');
    expect(response.text).toContain('R$ 1.234,56');
    for (const id of ['pay-pix', 'pay-crypto-usdc', 'pay-crypto-usdt', 'pay-crypto-eurc'])
      expect(response.text).toContain(`id="${id}"`);
  });

  test('an unknown slug gets the 404 page, as HTML with the same headers', async () => {
    const response = await h.http.get('/c/nao-existe-123');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('Checkout não encontrado');
    expectPageHeaders(response.headers);
  });

  test.each(['%ZZ', 'x%', '%E0%A4%A', '%00', '%C0%80'])(
    'a slug that is malformed (%s) gets the same HTML 404 page, while the session route under it stays JSON',
    async (slug) => {
      const page = await h.http.get(`/c/${slug}`);
      expect({ status: page.status, type: page.headers['content-type'] }).toEqual({
        status: 404,
        type: expect.stringMatching(/^text\/html/),
      });
      expect(page.text).toContain('Checkout não encontrado');
      const session = await h.http.post(`/c/${slug}/sessions`).send({ method: 'pix' });
      expect({ status: session.status, code: session.body?.error?.code }).toEqual({
        status: 404,
        code: 'NOT_FOUND',
      });
    },
  );

  test('the page says it is a test in sandbox, and a production gateway shows no such badge', async () => {
    expect((await h.http.get(`/c/${slug}`)).text).toContain('id="sandbox-badge"');
    const production = await startHarness('gw-page-prod', {
      services: ['checkout'],
      config: { APP_ENV: 'production' },
    });
    try {
      production.fakes.on(getCheckoutPage, checkoutPageOf(h.merchant.business_id));
      const page = await production.http.get(`/c/${slug}`);
      expect({ status: page.status, badge: page.text.includes('sandbox-badge') }).toEqual({
        status: 200,
        badge: false,
      });
    } finally {
      await production.close();
    }
  });

  test('the icon every page links is served as SVG', async () => {
    const icon = await h.http
      .get(`/c/assets/favicon.svg?v=${checkoutAssets['favicon.svg'].version}`)
      .buffer(true);
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(String(icon.body)).toBe(checkoutAssets['favicon.svg'].body);
  });

  test('assets are served with their type, and cached for good at their current version', async () => {
    const asset = checkoutAssets['checkout.js'];
    const versioned = await h.http.get(`/c/assets/checkout.js?v=${asset.version}`);
    expect(versioned.status).toBe(200);
    expect(versioned.headers['content-type']).toMatch(/^text\/javascript/);
    expect(versioned.headers['cache-control']).toContain('immutable');
    expect(versioned.text).toBe(asset.body);
    const css = await h.http.get('/c/assets/checkout.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.headers['cache-control']).not.toContain('immutable');
    expect((await h.http.get('/c/assets/secret.env')).status).toBe(404);
  });

  test('starting a PIX session answers what checkout.js reads', async () => {
    h.fakes.on(startCheckoutSession, async () => ({
      session_id: newPublicId('sess'),
      status: 'initiated',
      payment: aPixPaymentView({ business_id: h.merchant.business_id, amount_centavos: 123456 }),
    }));
    const response = await h.http.post(`/c/${slug}/sessions`).send({ method: 'pix' });
    expect(response.status).toBe(201);
    expectPageHeaders(response.headers);
    expect(response.body).toEqual({
      session_id: expect.stringMatching(/^sess_/),
      status: 'initiated',
      payment: {
        method: 'pix',
        expires_at: expect.any(String),
        pix: { qr_code: expect.any(String), copia_e_cola: expect.any(String) },
      },
    });
    expect(h.fakes.receivedOf(startCheckoutSession).at(-1)).toEqual<StartCheckoutSession>({
      slug,
      business_name: 'Estúdio Som & Cia',
      method: 'pix',
      token: null,
      buyer: null,
    });
  });

  test('starting a crypto session answers the token amount and upper-case currency', async () => {
    h.fakes.on(startCheckoutSession, async () => ({
      session_id: newPublicId('sess'),
      status: 'initiated',
      payment: aCryptoPaymentView({ business_id: h.merchant.business_id }),
    }));
    const response = await h.http.post(`/c/${slug}/sessions`).send({ method: 'crypto', currency: 'usdc' });
    expect(response.status).toBe(201);
    expect(response.body.payment).toEqual({
      method: 'crypto',
      expires_at: expect.any(String),
      crypto: {
        qr_code: expect.any(String),
        payment_link: expect.stringMatching(/^solana:/),
        amount: 18.234568,
        currency: 'USDC',
        wallet_address: expect.any(String),
      },
    });
    expect((h.fakes.receivedOf(startCheckoutSession).at(-1) as StartCheckoutSession).token).toBe('usdc');
  });

  test('a refused session answers the buyer-facing message for its code', async () => {
    h.fakes.on(startCheckoutSession, async () => {
      throw new CommandError('NO_FEE_RULE', 'sem regra de tarifa');
    });
    const response = await h.http.post(`/c/${slug}/sessions`).send({ method: 'pix' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      error: { code: 'NO_FEE_RULE', message: renderErrorMessage('NO_FEE_RULE') },
    });
    const unknown = await h.http.post('/c/nao-existe-123/sessions').send({ method: 'pix' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe(renderErrorMessage('NOT_FOUND'));
  });

  test('the session status answers status and return url', async () => {
    h.fakes.on(getCheckoutSessionStatus, async () => ({
      status: 'paid' as const,
      return_url: 'https://loja.example.com/obrigado',
      payment_id: 'pay_abcdefghijklmnopqrstuvwx',
      business_id: h.merchant.business_id,
    }));
    const response = await h.http.get(`/c/${slug}/sessions/sess_abcdefghijklmnopqrstuvwx`);
    expect(response.status).toBe(200);
    // The payment's and business's ids stay in the gateway.
    expect(response.body).toEqual({ status: 'paid', return_url: 'https://loja.example.com/obrigado' });
    expectPageHeaders(response.headers);
  });

  describe('going back to the method choice', () => {
    const sessionPath = `/c/${slug}/sessions/${newPublicId('sess')}`;
    const openSession = () => {
      const payment = aPixPaymentView({ business_id: h.merchant.business_id }).payment;
      h.fakes.on(getCheckoutSessionStatus, async () => ({
        status: 'initiated' as const,
        return_url: null,
        payment_id: payment.payment_id,
        business_id: payment.business_id,
      }));
      return payment;
    };

    test("cancels the session's payment by the API's cancel command before the choice is offered", async () => {
      const payment = openSession();
      h.fakes.on(cancelPayment, async () => ({ payment: { ...payment, status: 'cancelled' as const } }));
      const response = await h.http.post(`${sessionPath}/cancel`);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: { status: 'cancelled', return_url: null },
      });
      expectPageHeaders(response.headers);
      expect(h.fakes.receivedOf(cancelPayment).at(-1)).toEqual({
        business_id: h.merchant.business_id,
        payment_id: payment.payment_id,
      });
    });

    test('a cancel that loses the race to the payment being paid answers paid, not a new choice', async () => {
      const payment = openSession();
      h.fakes.on(cancelPayment, async () => {
        throw new CommandError('INVALID_STATUS', 'Pagamento já está paid.');
      });
      h.fakes.on(getPayment, async () => aPixPaymentView({ ...payment, status: 'paid' }));
      const response = await h.http.post(`${sessionPath}/cancel`);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: { status: 'paid', return_url: null },
      });
      expect(h.fakes.receivedOf(getPayment).at(-1)).toEqual({
        business_id: h.merchant.business_id,
        payment_id: payment.payment_id,
      });
    });

    test('a session already ended is not cancelled again; an unknown or malformed one is not found', async () => {
      const cancels = h.fakes.receivedOf(cancelPayment).length;
      h.fakes.on(getCheckoutSessionStatus, async () => ({
        status: 'paid' as const,
        return_url: 'https://loja.example.com/obrigado',
        payment_id: 'pay_abcdefghijklmnopqrstuvwx',
        business_id: h.merchant.business_id,
      }));
      const paid = await h.http.post(`${sessionPath}/cancel`);
      expect(paid.body).toEqual({ status: 'paid', return_url: 'https://loja.example.com/obrigado' });
      expect(h.fakes.receivedOf(cancelPayment)).toHaveLength(cancels);
      for (const path of [`/c/${slug}/sessions/nao-e-sessao/cancel`, `/c/%00/sessions/sess_x/cancel`]) {
        const response = await h.http.post(path);
        expect({ path, status: response.status, code: response.body?.error?.code }).toEqual({
          path,
          status: 404,
          code: 'NOT_FOUND',
        });
      }
    });
  });
});
