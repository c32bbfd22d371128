import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { startStack, stackClient, type RunningStack, type StackClient } from '@gateway/testkit';
import { hashPassword } from '../src/domain/password';
import type { Role } from '../src/domain/roles';
import { dashboardDatabase, insertMembership, insertUser } from '../src/persistence';
import { launchBrowser } from './support/browser';
import { csrfTokenOf, PASSWORD, signIn, signUp, uniqueEmail } from './support/accounts';

jest.setTimeout(120_000);

/** The integration pages (webhooks, customers, checkouts, a payment's cancel) against what an attacker tries. */
describe('the dashboard’s integration pages under attack', () => {
  let stack: RunningStack;
  let client: StackClient;
  let browser: Browser;
  let database: DataSource;
  /** Business A: its owner, its key, its own webhook, checkout and open payment. */
  const mine = {
    email: uniqueEmail('dona-a'),
    key: '',
    businessId: '',
    webhookId: '',
    checkoutId: '',
    paymentId: '',
  };
  /** Business B, another merchant, and what it has. */
  const theirs = { key: '', webhookId: '', customerId: '', productId: '', checkoutId: '', paymentId: '' };

  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ locale: 'pt-BR' });
    return { context, page: await context.newPage() };
  };

  /** Signs a person of `role` in business A in, on a page of their own. */
  const memberOfA = async (role: Role) => {
    const email = uniqueEmail(role);
    await database.transaction(async (manager) => {
      const user = await insertUser(manager, {
        id: `usr_${randomBytes(8).toString('hex')}`,
        email,
        passwordHash: await hashPassword(PASSWORD, randomBytes(16)),
      });
      await insertMembership(manager, { userId: user.id, businessId: mine.businessId, role });
    });
    const opened = await newPage();
    await signIn(opened.page, stack.dashboardUrl, email);
    await opened.page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
    return { ...opened, token: await csrfTokenOf(opened.page) };
  };

  /** What a business has: a webhook, a customer, a product with a checkout, an open payment. */
  const stockOf = async (key: string) => {
    const webhook = await client.api(key, 'POST', '/v1/webhook', {
      url: 'https://localhost:9/hooks',
      events: ['payment.confirmed'],
    });
    const customer = await client.api(key, 'POST', '/v1/customers', { email: 'cliente@b.test' });
    const product = await client.api(key, 'POST', '/v1/products', { name: 'Produto B', price: 1000 });
    const checkout = await client.api(key, 'POST', '/v1/checkouts', {
      product_id: product.body.product_id,
      return_url: 'https://b.example/ok',
      cancel_url: 'https://b.example/volta',
    });
    const payment = await client.api(key, 'POST', '/v1/payments', { payment_method: 'pix', amount: 777 });
    return {
      webhookId: webhook.body.webhook_id as string,
      customerId: customer.body.customer_id as string,
      productId: product.body.product_id as string,
      checkoutId: checkout.body.checkout_id as string,
      paymentId: payment.body.payment_id as string,
      businessId: payment.body.business_id as string | undefined,
    };
  };

  beforeAll(async () => {
    stack = await startStack();
    client = stackClient(stack);
    browser = await launchBrowser();
    database = await openServiceDatabase({ url: stack.env.database.url, ...dashboardDatabase });
    const a = await newPage();
    mine.key = await signUp(a.page, stack.dashboardUrl, { company: 'Loja A', email: mine.email });
    await a.context.close();
    const stockA = await stockOf(mine.key);
    Object.assign(mine, {
      webhookId: stockA.webhookId,
      checkoutId: stockA.checkoutId,
      paymentId: stockA.paymentId,
      businessId: (await client.api(mine.key, 'GET', `/v1/payments/${stockA.paymentId}`)).body.business_id,
    });
    const b = await newPage();
    theirs.key = await signUp(b.page, stack.dashboardUrl, {
      company: 'Loja B',
      email: uniqueEmail('dona-b'),
    });
    await b.context.close();
    const { businessId: _b, ...stockB } = await stockOf(theirs.key);
    Object.assign(theirs, stockB);
  }, 180_000);

  afterAll(async () => {
    await database?.destroy();
    await browser?.close();
    await stack?.stop();
  }, 60_000);

  /** A's webhook, checkout and payment as they were made. */
  const mineUntouched = async () => {
    expect((await client.api(mine.key, 'GET', `/v1/webhook/${mine.webhookId}`)).status).toBe(200);
    expect((await client.api(mine.key, 'GET', `/v1/checkouts/${mine.checkoutId}`)).body.status).toBe(
      'active',
    );
    expect((await client.api(mine.key, 'GET', `/v1/payments/${mine.paymentId}`)).body.status).not.toBe(
      'cancelled',
    );
  };

  test('a viewer sees no form that changes anything, and every such POST is refused by the server', async () => {
    const { context, page, token } = await memberOfA('viewer');
    for (const path of [
      '/webhooks',
      `/webhooks/${mine.webhookId}`,
      '/clientes',
      '/checkouts',
      `/checkouts/${mine.checkoutId}`,
    ]) {
      await page.goto(`${stack.dashboardUrl}${path}`);
      // The only forms a viewer gets are "Sair", the resend of its own verification mail, and searches (GETs).
      const changing = page.locator('main form[method="post"]:not([action="/verificar-email/reenviar"])');
      expect({ path, forms: await changing.count() }).toEqual({
        path,
        forms: 0,
      });
    }
    await page.goto(`${stack.dashboardUrl}/pagamentos/${mine.paymentId}`);
    expect(await page.getByRole('button', { name: 'Cancelar', exact: true }).count()).toBe(0);
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Empresa' }).count()).toBe(0);
    expect((await page.goto(`${stack.dashboardUrl}/empresa`))?.status()).toBe(403);
    const [myProduct] = (await client.api(mine.key, 'GET', '/v1/products')).body.data as Array<{
      product_id: string;
    }>;

    const posts: Array<[string, Record<string, string>]> = [
      ['/webhooks', { url: 'https://localhost:9/x', events: 'payment.created' }],
      [`/webhooks/${mine.webhookId}/excluir`, {}],
      [`/webhooks/${mine.webhookId}/trocar-segredo`, {}],
      [`/webhooks/${mine.webhookId}/testar`, {}],
      [`/webhooks/${mine.webhookId}/entregas/dlv_${'a'.repeat(24)}/reenviar`, {}],
      ['/clientes', { email: 'x@y.test' }],
      ['/checkouts/produtos', { name: 'X', price: '10,00' }],
      ['/checkouts', { product_id: 'prod_x', return_url: 'https://a.test', cancel_url: 'https://a.test' }],
      [`/checkouts/${mine.checkoutId}/desativar`, {}],
      [
        `/checkouts/${mine.checkoutId}`,
        { title: 'tomado', return_url: 'https://a.test', cancel_url: 'https://a.test' },
      ],
      [`/pagamentos/${mine.paymentId}/cancelar`, {}],
      [`/checkouts/produtos/${myProduct!.product_id}/desativar`, {}],
      ['/empresa', { time_zone: 'Asia/Tokyo' }],
    ];
    for (const [path, form] of posts) {
      const response = await context.request.post(`${stack.dashboardUrl}${path}`, {
        form: { _csrf: token, ...form },
        maxRedirects: 0,
      });
      expect({ path, status: response.status() }).toEqual({ path, status: 403 });
    }
    await mineUntouched();
    expect((await client.api(mine.key, 'GET', '/v1/customers')).body.data).toHaveLength(1);
    expect(
      ((await client.api(mine.key, 'GET', '/v1/products')).body.data as Array<{ status: string }>).map(
        (p) => p.status,
      ),
    ).toEqual(['active']);
    expect((await client.api(mine.key, 'GET', '/v1/webhook')).body.data).toHaveLength(1);
    await context.close();
  });

  test("a developer's new API key cannot refund or pay out, and the owner's full key is not theirs to roll or revoke", async () => {
    const { context, page, token } = await memberOfA('developer');
    await page.goto(`${stack.dashboardUrl}/chaves`);
    // Nothing ticked: every scope of the developer's role, and no more.
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const developerKey = (await page.getByTestId('nova-chave').textContent())!.trim();
    expect((await client.api(developerKey, 'GET', `/v1/payments/${mine.paymentId}`)).status).toBe(200);
    const refund = await client.api(developerKey, 'POST', `/v1/payments/${mine.paymentId}/refunds`, {
      amount: 100,
    });
    expect({ status: refund.status, code: refund.body.error?.code }).toEqual({
      status: 403,
      code: 'FORBIDDEN',
    });
    const payout = await client.api(developerKey, 'POST', '/v1/payouts', { amount: 100 });
    expect({ status: payout.status, code: payout.body.error?.code }).toEqual({
      status: 403,
      code: 'FORBIDDEN',
    });
    // A scope beyond the role, posted anyway, is refused and makes no key.
    const beyond = await context.request.post(`${stack.dashboardUrl}/chaves`, {
      form: { _csrf: token, scope: 'refunds:write' },
      maxRedirects: 0,
    });
    expect(beyond.status()).toBe(403);
    // The owner's full key (the one made at sign-up) would hand its powers over if rolled: refused, and it still works.
    const ownerPrefix = /^sk_test_(.{12})/.exec(mine.key)![1]!;
    for (const verb of ['trocar', 'revogar']) {
      const refused = await context.request.post(`${stack.dashboardUrl}/chaves/${ownerPrefix}/${verb}`, {
        form: { _csrf: token },
        maxRedirects: 0,
      });
      expect({ verb, status: refused.status() }).toEqual({ verb, status: 403 });
    }
    expect((await client.api(mine.key, 'GET', '/v1/payments?limit=1')).status).toBe(200);
    await context.close();
  });

  test('a developer manages webhooks, customers and checkouts, and still refunds nothing', async () => {
    const { context, page, token } = await memberOfA('developer');
    await page.goto(`${stack.dashboardUrl}/clientes`);
    await page.getByLabel('E-mail do cliente').fill('dev@cliente.test');
    await page.getByRole('button', { name: 'Criar cliente' }).click();
    await page.getByText('Cliente criado.').waitFor();
    await page.goto(`${stack.dashboardUrl}/webhooks/${mine.webhookId}`);
    expect(await page.getByRole('button', { name: 'Enviar evento de teste' }).count()).toBe(1);
    await page.goto(`${stack.dashboardUrl}/checkouts/${mine.checkoutId}`);
    expect(await page.getByRole('button', { name: 'Desativar' }).count()).toBe(1);
    const refund = await context.request.post(
      `${stack.dashboardUrl}/pagamentos/${mine.paymentId}/reembolsar`,
      {
        form: { _csrf: token, amount: '1,00' },
        maxRedirects: 0,
      },
    );
    expect(refund.status()).toBe(403);
    await context.close();
  });

  test("another business's webhook, customer, product, checkout and payment in the URL are not found, and untouched", async () => {
    const { context, page } = await newPage();
    await signIn(page, stack.dashboardUrl, mine.email);
    await page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
    const token = await csrfTokenOf(page);
    for (const path of [
      `/webhooks/${theirs.webhookId}`,
      `/clientes/${theirs.customerId}`,
      `/clientes?q=${theirs.customerId}`,
      `/checkouts/${theirs.checkoutId}`,
    ]) {
      const shown = await page.goto(`${stack.dashboardUrl}${path}`);
      expect({ path, status: shown?.status() }).toEqual({ path, status: 404 });
      expect(await page.content()).not.toContain('cliente@b.test');
    }
    const posts: Array<[string, Record<string, string>]> = [
      [`/webhooks/${theirs.webhookId}/excluir`, {}],
      [`/webhooks/${theirs.webhookId}/trocar-segredo`, {}],
      [`/webhooks/${theirs.webhookId}/testar`, {}],
      [`/webhooks/${theirs.webhookId}/entregas/dlv_${'a'.repeat(24)}/reenviar`, {}],
      [`/checkouts/produtos/${theirs.productId}`, { name: 'Tomado', price: '1,00' }],
      [`/checkouts/produtos/${theirs.productId}/desativar`, {}],
      [`/checkouts/${theirs.checkoutId}/desativar`, {}],
      [
        `/checkouts/${theirs.checkoutId}`,
        { title: 'tomado', return_url: 'https://a.test', cancel_url: 'https://a.test' },
      ],
      [
        '/checkouts',
        { product_id: theirs.productId, return_url: 'https://a.test', cancel_url: 'https://a.test' },
      ],
      [`/pagamentos/${theirs.paymentId}/cancelar`, {}],
    ];
    for (const [path, form] of posts) {
      const response = await context.request.post(`${stack.dashboardUrl}${path}`, {
        form: { _csrf: token, ...form },
        maxRedirects: 0,
      });
      // Not found; a checkout of another business's product is the public API's NOT_FOUND shown on the page.
      expect({ path, status: response.status() }).toEqual({ path, status: 404 });
    }
    expect((await client.api(theirs.key, 'GET', `/v1/webhook/${theirs.webhookId}`)).status).toBe(200);
    expect((await client.api(theirs.key, 'GET', `/v1/checkouts/${theirs.checkoutId}`)).body.status).toBe(
      'active',
    );
    expect((await client.api(theirs.key, 'GET', `/v1/payments/${theirs.paymentId}`)).body.status).not.toBe(
      'cancelled',
    );
    expect(
      (
        (await client.api(theirs.key, 'GET', '/v1/products')).body.data as Array<{
          name: string;
          status: string;
        }>
      ).map((p) => `${p.name} ${p.status}`),
    ).toEqual(['Produto B active']);
    expect((await client.api(mine.key, 'GET', '/v1/checkouts')).body.data).toHaveLength(1);
    await context.close();
  });

  test('the new forms are refused without their CSRF token or from another origin; the pages allow no script', async () => {
    const { context, page } = await newPage();
    await signIn(page, stack.dashboardUrl, mine.email);
    await page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
    const token = await csrfTokenOf(page);
    for (const path of [
      '/webhooks',
      `/webhooks/${mine.webhookId}/excluir`,
      `/checkouts/${mine.checkoutId}/desativar`,
      '/clientes',
      `/pagamentos/${mine.paymentId}/cancelar`,
      '/empresa',
    ]) {
      const without = await context.request.post(`${stack.dashboardUrl}${path}`, {
        form: {},
        maxRedirects: 0,
      });
      const forged = await context.request.post(`${stack.dashboardUrl}${path}`, {
        form: { _csrf: token },
        headers: { origin: 'http://evil.test' },
        maxRedirects: 0,
      });
      expect({ path, statuses: [without.status(), forged.status()] }).toEqual({ path, statuses: [403, 403] });
    }
    await mineUntouched();
    for (const path of [`/webhooks/${mine.webhookId}`, '/clientes', `/checkouts/${mine.checkoutId}`]) {
      const response = await page.goto(`${stack.dashboardUrl}${path}`);
      const policy = response!.headers()['content-security-policy'];
      expect(policy).toContain("default-src 'none'");
      expect(policy).not.toContain('script-src');
    }
    await context.close();
  });
});
