import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  cobAtPsp,
  stackClient,
  startStack,
  waitFor,
  type RunningStack,
  type StackClient,
} from '@gateway/testkit';
import { launchChromium, screenshotFolder } from './support/browser';

/** A buyer on a phone opens the checkout link, pays in sandbox and lands back on the shop. */
describe('hosted checkout in a real browser', () => {
  let stack: RunningStack;
  let shop: Server;
  let shopUrl: string;
  let browser: Browser;
  let artifacts: string;
  let apiKey: string;
  let productId: string;

  let client: StackClient;
  /** The merchant's request, which must succeed; its answer's body. */
  const call = async (path: string, init: { method: string; body?: unknown }) => {
    const { status, body } = await client.api(apiKey, init.method, path, init.body);
    if (status >= 300) throw new Error(`${init.method} ${path}: ${status} ${JSON.stringify(body)}`);
    return body;
  };

  const newCheckout = async (title: string) =>
    call('/v1/checkouts', {
      method: 'POST',
      body: {
        product_id: productId,
        title,
        return_url: `${shopUrl}/obrigado`,
        cancel_url: `${shopUrl}/carrinho`,
      },
    });

  const phonePage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    return context.newPage();
  };

  const payLatestSession = async (checkoutId: string) => {
    const checkout = await call(`/v1/checkouts/${checkoutId}`, { method: 'GET' });
    const paymentId = checkout.sessions[0].payment_id as string;
    await call(`/v1/sandbox/payments/${paymentId}/simulate`, { method: 'POST', body: { outcome: 'paid' } });
    return paymentId;
  };

  beforeAll(async () => {
    artifacts = screenshotFolder('hosted-checkout');
    shop = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Loja</title><h1>Obrigado pela compra!</h1><p>${req.url}</p>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    stack = await startStack();
    client = stackClient(stack);
    const fee = { percent_bps: 100, fixed_centavos: 0 };
    const business = await client.createBusiness('Café Açaí & Cia', { pix: fee, crypto: fee });
    apiKey = business.apiKey;
    const product = await client.admin('POST', `/admin/v1/businesses/${business.businessId}/products`, {
      name: 'Açaí 500 ml',
      price: 2490,
      description: 'Com granola e banana',
    });
    productId = product.product_id;
    browser = await launchChromium();
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await new Promise((resolve) => shop?.close(resolve));
  });

  test('paying by PIX shows the QR code and copy-and-paste code, then returns the buyer to the shop', async () => {
    const checkout = await newCheckout('Açaí no capricho');
    const page = await phonePage();
    await page.goto(`${stack.gatewayUrl}/c/${checkout.slug}`);
    await expect(page.locator('#checkout-title').textContent()).resolves.toBe('Açaí no capricho');
    await expect(page.locator('#price').textContent()).resolves.toContain('24,90');
    // A sandbox stack: the buyer is told no real money moves.
    await expect(page.locator('#sandbox-badge').isVisible()).resolves.toBe(true);
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    const iconAnswer = await page.request.get(new URL(icon!, page.url()).toString());
    expect({ status: iconAnswer.status(), type: iconAnswer.headers()['content-type'] }).toEqual({
      status: 200,
      type: expect.stringMatching(/^image\/svg\+xml/),
    });
    await page.screenshot({ path: join(artifacts, 'pix-1-choose.png'), fullPage: true });

    await page.click('#pay-pix');
    await page.locator('#qr-code[src^="data:image/png;base64,"]').waitFor();
    await expect(page.locator('#copia-e-cola').inputValue()).resolves.toMatch(/^000201/);
    await expect(page.locator('#countdown').textContent()).resolves.toMatch(/^\d{2}:\d{2}$/);
    await page.screenshot({ path: join(artifacts, 'pix-2-qr-code.png'), fullPage: true });

    await expect(page.locator('#cancel-link').isVisible()).resolves.toBe(true);

    await payLatestSession(checkout.checkout_id);
    // Paid, before the redirect: nothing to cancel any more.
    await page.locator('#checkout[data-state="paid"] #cancel-link[hidden]').waitFor({ state: 'attached' });
    await expect(page.locator('#cancel-link').isVisible()).resolves.toBe(false);
    await page.waitForURL(`${shopUrl}/obrigado`, { timeout: 30_000 });
    await page.screenshot({ path: join(artifacts, 'pix-3-returned-to-shop.png') });
    const after = await call(`/v1/checkouts/${checkout.checkout_id}`, { method: 'GET' });
    expect(after.sessions[0].status).toBe('paid');
  }, 90_000);

  test('a buyer who opened PIX goes back to the method choice and pays in USDC, returning to the shop once the transfer lands', async () => {
    const checkout = await newCheckout('Açaí em cripto');
    const page = await phonePage();
    await page.goto(`${stack.gatewayUrl}/c/${checkout.slug}`);
    await page.click('#pay-pix');
    await page.locator('#qr-code[src^="data:image/png;base64,"]').waitFor();
    const pixId = (await call(`/v1/checkouts/${checkout.checkout_id}`, { method: 'GET' })).sessions[0]
      .payment_id as string;
    await page.click('#change-method');
    await page.locator('#choose').waitFor({ state: 'visible' });
    expect({
      state: await page.locator('#checkout').getAttribute('data-state'),
      payShown: await page.locator('#pay').isVisible(),
      status: await page.locator('#status').textContent(),
    }).toEqual({ state: 'choose', payShown: false, status: '' });
    // The PIX left behind can no longer be paid: cancelled before the choice came back, its cob removed at the PSP.
    const pix = await call(`/v1/payments/${pixId}`, { method: 'GET' });
    expect(pix.status).toBe('cancelled');
    await waitFor(
      async () =>
        (await cobAtPsp(stack.pspUrl, pix.external_id)).status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      { timeoutMs: 30_000, intervalMs: 200, what: 'the abandoned cob removed at the PSP' },
    );

    await page.click('#pay-crypto-usdc');
    await page.locator('#qr-code[src^="data:image/png;base64,"]').waitFor();
    await expect(page.locator('#open-wallet').getAttribute('href')).resolves.toMatch(/^solana:/);
    await page.screenshot({ path: join(artifacts, 'usdc-1-payment-link.png'), fullPage: true });

    await expect(page.locator('#pay-title').textContent()).resolves.toBe('Pague com USDC');
    // From the crypto view, too, the buyer can go back; here they stay and pay.
    await expect(page.locator('#change-method').isVisible()).resolves.toBe(true);

    await payLatestSession(checkout.checkout_id);
    await page.waitForURL(`${shopUrl}/obrigado`, { timeout: 30_000 });
    await page.screenshot({ path: join(artifacts, 'usdc-2-returned-to-shop.png') });
    const statuses = async () =>
      (await call(`/v1/checkouts/${checkout.checkout_id}`, { method: 'GET' })).sessions
        .map((session: { status: string }) => session.status)
        .join(',');
    await waitFor(async () => (await statuses()) === 'paid,cancelled', {
      what: 'the USDC session paid and the PIX one cancelled',
    });
  }, 90_000);

  test('a payment the shop cancels shows as cancelled, and the buyer can start a new attempt and pay it', async () => {
    const checkout = await newCheckout('Açaí cancelado');
    const page = await phonePage();
    await page.goto(`${stack.gatewayUrl}/c/${checkout.slug}`);
    await page.click('#pay-pix');
    await page.locator('#qr-code[src^="data:image/png;base64,"]').waitFor();
    const first = await call(`/v1/checkouts/${checkout.checkout_id}`, { method: 'GET' });
    const cancelledId = first.sessions[0].payment_id as string;
    await call(`/v1/payments/${cancelledId}/cancel`, { method: 'POST' });

    await page.locator('#retry').waitFor({ state: 'visible', timeout: 30_000 });
    await expect(page.locator('#status').textContent()).resolves.toContain('cancelado');
    await expect(page.locator('#checkout').getAttribute('data-state')).resolves.toBe('cancelled');
    await page.screenshot({ path: join(artifacts, 'cancelled-1-offered-again.png'), fullPage: true });
    const after = await call(`/v1/checkouts/${checkout.checkout_id}`, { method: 'GET' });
    expect(after.sessions[0]).toMatchObject({ payment_id: cancelledId, status: 'cancelled' });

    await page.click('#retry');
    await page.click('#pay-pix');
    await page.locator('#qr-code[src^="data:image/png;base64,"]').waitFor();
    const retried = await payLatestSession(checkout.checkout_id);
    expect(retried).not.toBe(cancelledId);
    await page.waitForURL(`${shopUrl}/obrigado`, { timeout: 30_000 });
  }, 90_000);

  test('a recurring product sells a subscription: name and CPF asked (bad ones refused), one QR code pays the first cycle and the subscription is active', async () => {
    const product = await call('/v1/products', {
      method: 'POST',
      body: { name: 'Clube do Açaí', price: 4990, interval: 'monthly' },
    });
    expect(product).toMatchObject({ interval: 'monthly', price: 49.9 });
    const checkout = await call('/v1/checkouts', {
      method: 'POST',
      body: {
        product_id: product.product_id,
        title: 'Clube do Açaí',
        return_url: `${shopUrl}/obrigado`,
        cancel_url: `${shopUrl}/carrinho`,
      },
    });
    const sessionsUrl = `${stack.gatewayUrl}/c/${checkout.slug}/sessions`;
    const page = await phonePage();
    await page.goto(`${stack.gatewayUrl}/c/${checkout.slug}`);
    expect({
      badge: await page.locator('#subscription-badge').textContent(),
      price: await page.locator('#price').textContent(),
      per: await page.locator('#price-interval').textContent(),
      crypto: await page.locator('button[data-method="crypto"]').count(),
    }).toEqual({
      badge: 'Assinatura mensal',
      price: expect.stringContaining('49,90'),
      per: 'por mês',
      crypto: 0,
    });
    await page.screenshot({ path: join(artifacts, 'subscription-1-buyer.png'), fullPage: true });

    const buyerError = async () => {
      await page.locator('#status[data-tone="error"]').waitFor();
      const shown = {
        state: await page.locator('#checkout').getAttribute('data-state'),
        status: await page.locator('#status').textContent(),
      };
      await page
        .locator('#status')
        .evaluate((node: { removeAttribute(name: string): void }) => node.removeAttribute('data-tone'));
      return shown;
    };
    const refused = { state: 'choose', status: 'Confira seu nome e CPF e tente novamente.' };
    // No name: the page refuses before asking.
    await page.fill('#buyer-document', '529.982.247-25');
    await page.click('#pay-pix');
    await expect(buyerError()).resolves.toEqual(refused);
    // Wrong check digits: the server refuses (the customer service's check), and the page says so.
    await page.fill('#buyer-name', 'Maria da Silva');
    await page.fill('#buyer-document', '529.982.247-26');
    const wrongDigits = page.waitForResponse((response) => response.url() === sessionsUrl);
    await page.click('#pay-pix');
    expect((await wrongDigits).status()).toBe(422);
    await expect(buyerError()).resolves.toEqual(refused);
    // The page's own call, sent as anyone could: the contract's error shape, never a 5xx.
    const answers = await Promise.all(
      [
        { method: 'pix', name: 'Maria\u0000 da Silva', document: '52998224725' },
        { method: 'pix', name: '   ', document: '52998224725' },
        { method: 'pix', document: '52998224725' },
        { method: 'pix', name: 'Maria da Silva', document: '5299822\u000047' },
        { method: 'crypto', currency: 'USDC', name: 'Maria da Silva', document: '52998224725' },
      ].map(async (data) => {
        const response = await page.request.post(sessionsUrl, { data });
        return [response.status(), ((await response.json()) as { error: { code: string } }).error.code];
      }),
    );
    expect(answers).toEqual([
      [422, 'INVALID_FIELDS'],
      [422, 'INVALID_FIELDS'],
      [422, 'MISSING_FIELDS'],
      [422, 'INVALID_FIELDS'],
      [422, 'UNSUPPORTED_PAYMENT_METHOD'],
    ]);

    await page.fill('#buyer-document', '529.982.247-25');
    await page.click('#pay-pix');
    await page.locator('#qr-code[src^="data:image/png;base64,"]').waitFor();
    await expect(page.locator('#copia-e-cola').inputValue()).resolves.toMatch(/^000201/);
    await expect(page.locator('#change-method').isVisible()).resolves.toBe(false);
    await page.screenshot({ path: join(artifacts, 'subscription-2-qr-code.png'), fullPage: true });

    const session = (await call(`/v1/checkouts/${checkout.checkout_id}`, { method: 'GET' })).sessions[0];
    const subscriptions = await call('/v1/subscriptions', { method: 'GET' });
    const subscription = subscriptions.data.find(
      (candidate: { first_payment_id: string | null }) => candidate.first_payment_id === session.payment_id,
    );
    expect(subscription).toMatchObject({
      status: 'pending_authorization',
      amount_brl: 49.9,
      interval: 'monthly',
      authorization: { journey: 'qr_with_first_payment' },
    });
    const customer = await call(`/v1/customers/${subscription.customer_id}`, { method: 'GET' });
    expect(customer).toMatchObject({ name: 'Maria da Silva', document_number: '52998224725' });

    // The payer's bank reads the QR code: the first cycle is paid and the rest authorized.
    await call(`/v1/sandbox/subscriptions/${subscription.subscription_id}/simulate`, {
      method: 'POST',
      body: { outcome: 'authorize' },
    });
    await page.locator('#checkout[data-state="paid"]').waitFor({ state: 'attached', timeout: 30_000 });
    await page.waitForURL(`${shopUrl}/obrigado`, { timeout: 30_000 });
    await waitFor(
      async () =>
        (await call(`/v1/subscriptions/${subscription.subscription_id}`, { method: 'GET' })).status ===
        'active',
      { what: 'the subscription active' },
    );
    const after = await call(`/v1/checkouts/${checkout.checkout_id}`, { method: 'GET' });
    expect(after.sessions).toEqual([
      expect.objectContaining({ payment_id: session.payment_id, status: 'paid' }),
    ]);
  }, 120_000);

  test('an unknown checkout link shows a proper 404 page', async () => {
    const page = await phonePage();
    const response = await page.goto(`${stack.gatewayUrl}/c/nao-existe-${Date.now()}`);
    expect(response?.status()).toBe(404);
    await expect(page.locator('h1').textContent()).resolves.toBeTruthy();
    await waitFor(async () => (await page.content()).includes('lang="pt-BR"'), {
      what: 'the Portuguese 404 page',
    });
  });
});
