import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import {
  createTestPki,
  startHttpsEndpoint,
  startStack,
  stackClient,
  waitFor,
  type HttpsEndpoint,
  type RunningStack,
  type StackClient,
  type TestPki,
} from '@gateway/testkit';
import { launchBrowser, screenshot, seriousViolations } from './support/browser';
import { signUp, uniqueEmail } from './support/accounts';
import { formatDateTime } from '../src/domain/format';

jest.setTimeout(120_000);

/** What the merchant's endpoint answers for now, and what it has received. */
interface Endpoint {
  answer: { status: number; body: string };
  received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }>;
}

/**
 * The integration pages as a developer uses them, in Chromium, against the whole stack: a webhook endpoint at a local
 * HTTPS receiver (a test event, a delivery and its attempts, a resend), customers, a payment cancelled and the list's
 * filters.
 */
describe('the dashboard’s integration pages, as a person uses them', () => {
  let pki: TestPki;
  let receiver: HttpsEndpoint;
  let stack: RunningStack;
  let client: StackClient;
  let browser: Browser;
  let page: Page;
  let apiKey: string;
  let secret: string;
  const endpoint: Endpoint = { answer: { status: 200, body: 'ok' }, received: [] };

  const go = (path: string) => page.goto(`${stack.dashboardUrl}${path}`);
  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();

  beforeAll(async () => {
    pki = createTestPki();
    receiver = await startHttpsEndpoint(pki.server, (req, body, res) => {
      endpoint.received.push({ headers: req.headers, body: body.toString('utf8') });
      res.writeHead(endpoint.answer.status, { 'content-type': 'text/html' }).end(endpoint.answer.body);
    });
    // No retry of its own comes between the test's steps: every new attempt here is one the page asked for.
    stack = await startStack({ NODE_EXTRA_CA_CERTS: pki.caPath, WEBHOOK_RETRY_SCHEDULE: '1h' });
    client = stackClient(stack);
    browser = await launchBrowser();
    page = await (
      await browser.newContext({ locale: 'pt-BR', viewport: { width: 1200, height: 800 } })
    ).newPage();
    apiKey = await signUp(page, stack.dashboardUrl, { company: 'Loja Integrada', email: uniqueEmail('dev') });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await receiver?.stop();
    pki?.remove();
  }, 60_000);

  describe('Webhooks', () => {
    let webhookPath: string;

    test('an endpoint is created for the events ticked, its signing secret shown once', async () => {
      await nav('Webhooks');
      await page.getByText('Nenhum endpoint cadastrado.').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel('Endereço (https://)').fill(`https://localhost:${receiver.port}/hooks`);
      await page.getByRole('checkbox', { name: /payment\.created/ }).check();
      await page.getByRole('button', { name: 'Criar endpoint' }).click();
      await page.getByText('Endpoint criado.').waitFor();
      secret = (await page.getByTestId('segredo-webhook').textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);
      webhookPath = new URL(page.url()).pathname;
      expect(await seriousViolations(page)).toEqual([]);

      // Shown once: the page read again has no secret; the list has the endpoint.
      await nav('Webhooks');
      expect(await page.content()).not.toContain(secret);
      await page.getByRole('link', { name: `https://localhost:${receiver.port}/hooks` }).click();
      expect(await page.getByTestId('segredo-webhook').count()).toBe(0);
      webhookPath = new URL(page.url()).pathname;
      expect(webhookPath).toMatch(/^\/webhooks\/wh_/);
      const listed = await client.api(apiKey, 'GET', '/v1/webhook');
      expect([...(listed.body.data as Array<{ events: string[] }>)].map((w) => w.events.sort())).toEqual([
        ['payment.confirmed', 'payment.created'],
      ]);
    });

    test('"Enviar evento de teste" sends a signed webhook.test and shows what the endpoint answered', async () => {
      await go(webhookPath);
      await page.getByRole('button', { name: 'Enviar evento de teste' }).click();
      await page.getByText(/^Evento de teste evt_\S+ enviado: o endpoint respondeu 200\.$/).waitFor();
      const test = endpoint.received.find((request) => JSON.parse(request.body).type === 'webhook.test');
      expect(test).toBeDefined();
      expect(test!.headers['x-service-signature']).toBe(
        createHmac('sha256', secret).update(test!.body).digest('hex'),
      );
    });

    test('a delivery shows each attempt; the endpoint failing, "Reenviar" adds an attempt with its answer, escaped', async () => {
      const created = await client.api(apiKey, 'POST', '/v1/payments', {
        payment_method: 'pix',
        amount: 4321,
      });
      const eventId = await waitFor(
        () =>
          endpoint.received
            .map(
              (request) =>
                JSON.parse(request.body) as { id: string; type: string; data: { payment_id?: string } },
            )
            .find(
              (event) =>
                event.type === 'payment.created' && event.data.payment_id === created.body.payment_id,
            )?.id,
        { timeoutMs: 30_000, what: 'the payment.created delivery' },
      );
      const delivery = page.getByTestId('entrega').filter({ hasText: eventId });
      const attempts = delivery.getByRole('row').filter({ has: page.getByRole('cell') });
      await waitFor(
        async () => {
          await go(webhookPath);
          return (await delivery.count()) === 1 && (await attempts.count()) === 1;
        },
        { timeoutMs: 30_000, intervalMs: 500, what: 'the delivery and its attempt on the page' },
      );
      expect(await delivery.textContent()).toContain('Entregue');
      expect(await attempts.first().textContent()).toContain('200');
      expect(await seriousViolations(page)).toEqual([]);

      endpoint.answer = {
        status: 500,
        body: '<script>window.__injected=true</script><img src=x onerror="window.__injected=true">falhou',
      };
      await delivery.getByRole('button', { name: `Reenviar o evento ${eventId}` }).click();
      await page.getByText('Entrega reenviada: a nova tentativa aparece em instantes.').waitFor();
      await waitFor(
        async () => {
          await go(webhookPath);
          return (await attempts.count()) === 2;
        },
        { timeoutMs: 30_000, intervalMs: 500, what: 'the second attempt on the page' },
      );
      const second = attempts.filter({ hasText: '500' });
      expect(await second.count()).toBe(1);
      // The endpoint's answer is shown as the text it is, and nothing of it runs.
      expect(await second.locator('pre').textContent()).toBe(endpoint.answer.body);
      expect(await page.locator('main script, main img').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as { __injected?: boolean }).__injected)).toBeUndefined();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'webhook-entregas');
      endpoint.answer = { status: 200, body: 'ok' };
    });

    test('"Trocar o segredo" shows a new secret once, which signs what follows', async () => {
      await go(webhookPath);
      await page.getByRole('button', { name: 'Trocar o segredo' }).click();
      const rotated = (await page.getByTestId('segredo-webhook').textContent())!.trim();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      const before = endpoint.received.length;
      await page.getByRole('button', { name: 'Enviar evento de teste' }).click();
      await page.getByText(/o endpoint respondeu 200\.$/).waitFor();
      const test = endpoint.received
        .slice(before)
        .find((request) => JSON.parse(request.body).type === 'webhook.test');
      expect(test!.headers['x-service-signature']).toBe(
        createHmac('sha256', rotated).update(test!.body).digest('hex'),
      );
    });

    test('"Excluir endpoint" deletes it', async () => {
      await go(webhookPath);
      await page.getByRole('button', { name: 'Excluir endpoint' }).click();
      await page.getByText('Endpoint excluído: ele não recebe mais eventos.').waitFor();
      await page.getByText('Nenhum endpoint cadastrado.').waitFor();
      expect((await page.goto(`${stack.dashboardUrl}${webhookPath}`))?.status()).toBe(404);
    });
  });

  describe('Clientes', () => {
    test('a customer is created (a bad CPF refused as the API words it), listed, found by id, and shown', async () => {
      await nav('Clientes');
      await page.getByText('Nenhum cliente cadastrado.').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel('Nome do cliente').fill('Maria Souza');
      await page.getByLabel('E-mail do cliente').fill('maria@cliente.test');
      await page.getByLabel('CPF ou CNPJ').fill('12345678900');
      await page.getByRole('button', { name: 'Criar cliente' }).click();
      await page.getByRole('alert').waitFor();
      // What was typed stays on the form.
      expect(await page.getByLabel('E-mail do cliente').inputValue()).toBe('maria@cliente.test');
      await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
      await page.getByRole('button', { name: 'Criar cliente' }).click();
      await page.getByText('Cliente criado.').waitFor();
      const customerId = new URL(page.url()).pathname.split('/').at(-1)!;
      expect(customerId).toMatch(/^cust_/);
      expect(await page.locator('.details').textContent()).toContain('maria@cliente.test');
      expect(await page.locator('.details').textContent()).toContain('Maria Souza');
      expect(await seriousViolations(page)).toEqual([]);

      await nav('Clientes');
      await page.getByRole('row').filter({ hasText: 'maria@cliente.test' }).waitFor();
      await page.getByLabel('Buscar por id').fill(customerId);
      await page.getByRole('button', { name: 'Buscar' }).click();
      await page.getByRole('heading', { name: `Cliente ${customerId}` }).waitFor();
      const read = await client.api(apiKey, 'GET', `/v1/customers/${customerId}`);
      expect(read.body).toMatchObject({ name: 'Maria Souza', email: 'maria@cliente.test' });
    });

    test('a search by e-mail lists only the customers with that address, its domain in any case', async () => {
      await client.api(apiKey, 'POST', '/v1/customers', { email: 'joao@cliente.test' });
      await nav('Clientes');
      await page.getByRole('row').filter({ hasText: 'joao@cliente.test' }).waitFor();
      await page.getByLabel('Buscar por id ou e-mail').fill(' maria@CLIENTE.test ');
      await page.getByRole('button', { name: 'Buscar' }).click();
      const found = page.getByRole('table', { name: /^Clientes com o e-mail maria@CLIENTE\.test/ });
      await found.waitFor();
      const rows = found.getByRole('row').filter({ has: page.getByRole('cell') });
      expect(await rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain('maria@cliente.test');
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByLabel('Buscar por id ou e-mail').fill('ninguem@cliente.test');
      await page.getByRole('button', { name: 'Buscar' }).click();
      await page.getByText('Nenhum cliente com este e-mail.').waitFor();
      await page.getByLabel('Buscar por id ou e-mail').fill('maria@@cliente');
      await page.getByRole('button', { name: 'Buscar' }).click();
      await page.getByRole('alert').waitFor();
    });
  });

  describe('Checkouts', () => {
    const productName = '<script>window.__injected=true</script>Camiseta <b>azul</b>';
    let checkoutPath: string;
    let link: string;

    test('a product is created; its name, merchant text, is shown as the text it is', async () => {
      await nav('Checkouts');
      await page.getByText(/^Nenhum produto cadastrado\./).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel('Nome do produto').fill(productName);
      await page.getByLabel('Preço (R$)').fill('79,90');
      await page
        .getByLabel('Descrição (opcional)')
        .fill('Algodão <img src=x onerror="window.__injected=true">');
      await page.getByRole('button', { name: 'Criar produto' }).click();
      await page.getByText('Produto criado.').waitFor();
      const row = page.getByRole('row').filter({ hasText: 'R$ 79,90' });
      expect(await row.getByRole('cell').first().textContent()).toContain(productName);
      expect(await page.locator('main script, main b, main img').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as { __injected?: boolean }).__injected)).toBeUndefined();
      expect(await seriousViolations(page)).toEqual([]);
    });

    test('a checkout of it shows its hosted link, which opens the payment page', async () => {
      await page.getByLabel('Produto', { exact: true }).selectOption({ index: 0 });
      await page.getByLabel('Título (opcional)').fill('Camiseta azul');
      await page.getByLabel('Endereço após o pagamento').fill('https://loja.example/obrigado');
      await page.getByLabel('Endereço ao cancelar').fill('https://loja.example/carrinho');
      await page.getByRole('button', { name: 'Criar checkout' }).click();
      await page.getByText('Checkout criado: compartilhe o link.').waitFor();
      checkoutPath = new URL(page.url()).pathname;
      link = (await page.getByTestId('link-checkout').textContent())!.trim();
      expect(link).toMatch(/\/c\/camiseta-azul-[a-z0-9]+$/);
      expect(await seriousViolations(page)).toEqual([]);
      const hosted = await (await browser.newContext()).newPage();
      expect((await hosted.goto(link))?.status()).toBe(200);
      expect(await hosted.content()).toContain('Camiseta azul');
      await hosted.context().close();
      await nav('Checkouts');
      expect(await page.getByRole('row').filter({ hasText: link }).textContent()).toContain('Ativo');
    });

    test('a product edited is sold at its new price', async () => {
      await nav('Checkouts');
      const edit = page.locator('details').filter({ hasText: 'Editar' });
      await edit.locator('summary').click();
      await edit.getByLabel('Preço (R$)').fill('89,90');
      await edit.getByRole('button', { name: 'Salvar produto' }).click();
      await page.getByText(/^Produto salvo/).waitFor();
      expect(await page.getByRole('row').filter({ hasText: 'R$ 89,90' }).count()).toBe(1);
      const products = await client.api(apiKey, 'GET', '/v1/products');
      expect((products.body.data as Array<{ price: number }>).map((p) => p.price)).toEqual([89.9]);
    });

    test('a checkout edited, deactivated (its link stops opening) and reactivated', async () => {
      await go(checkoutPath);
      await page.getByLabel('Título').fill('Camiseta azul em promoção');
      await page.getByRole('button', { name: 'Salvar', exact: true }).click();
      await page.getByText('Checkout salvo.').waitFor();
      await page.getByRole('heading', { name: 'Checkout Camiseta azul em promoção', level: 1 }).waitFor();

      await page.getByRole('button', { name: 'Desativar' }).click();
      await page.getByText('Checkout desativado: o link não abre mais a página.').waitFor();
      expect(await page.getByTestId('situacao-checkout').textContent()).toBe('Desativado');
      expect(await seriousViolations(page)).toEqual([]);
      const hosted = await (await browser.newContext()).newPage();
      expect((await hosted.goto(link))?.status()).toBe(404);
      await page.getByRole('button', { name: 'Reativar' }).click();
      await page.getByText('Checkout reativado: o link abre a página de novo.').waitFor();
      expect((await hosted.goto(link))?.status()).toBe(200);
      await hosted.context().close();
    });

    test('a product deactivated is offered to no new checkout and the API refuses one, until reactivated', async () => {
      await nav('Checkouts');
      const row = page.getByRole('row').filter({ hasText: 'R$ 89,90' });
      await row.getByRole('button', { name: /^Desativar o produto/ }).click();
      await page.getByText('Produto desativado: nenhum checkout novo pode vendê-lo.').waitFor();
      expect(await row.textContent()).toContain('Desativado');
      expect(await page.getByRole('button', { name: 'Criar checkout' }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      const [product] = (await client.api(apiKey, 'GET', '/v1/products')).body.data as Array<{
        product_id: string;
        status: string;
      }>;
      expect(product!.status).toBe('inactive');
      const refused = await client.api(apiKey, 'POST', '/v1/checkouts', {
        product_id: product!.product_id,
        return_url: 'https://loja.example/obrigado',
        cancel_url: 'https://loja.example/carrinho',
      });
      expect({ status: refused.status, code: refused.body.error.code }).toEqual({
        status: 422,
        code: 'INVALID_STATUS',
      });

      await row.getByRole('button', { name: /^Reativar o produto/ }).click();
      await page.getByText('Produto reativado: novos checkouts podem vendê-lo.').waitFor();
      expect(await row.textContent()).toContain('Ativo');
      await page.getByRole('button', { name: 'Criar checkout' }).waitFor();
    });
  });

  describe('Pagamentos', () => {
    test('"Cancelar" cancels an open payment through the public API', async () => {
      const created = await client.api(apiKey, 'POST', '/v1/payments', {
        payment_method: 'pix',
        amount: 2500,
      });
      const paymentId = created.body.payment_id as string;
      await go(`/pagamentos/${paymentId}`);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Cancelar', exact: true }).click();
      await page.getByText('Pagamento cancelado.').waitFor();
      expect(await page.getByTestId('situacao').textContent()).toBe('Cancelado');
      expect(await page.getByRole('button', { name: 'Cancelar', exact: true }).count()).toBe(0);
      expect((await client.api(apiKey, 'GET', `/v1/payments/${paymentId}`)).body.status).toBe('cancelled');
    });

    test('the list filters by method and by the days it was created on', async () => {
      await nav('Pagamentos');
      const rows = page.getByRole('row').filter({ has: page.getByRole('cell') });
      await rows.first().waitFor();
      const all = await rows.count();
      expect(all).toBeGreaterThanOrEqual(2);

      await page.getByLabel('Método').selectOption('crypto');
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await page.getByText('Nenhum pagamento encontrado.').waitFor();
      await page.getByLabel('Método').selectOption('pix');
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await rows.first().waitFor();
      expect(await rows.count()).toBe(all);

      // Today in the business's time zone holds them; yesterday holds none.
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
      const yesterday = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(
        new Date(Date.now() - 86_400_000),
      );
      await page.getByLabel('Criados de').fill(today);
      await page.getByLabel('até').fill(today);
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await rows.first().waitFor();
      expect(await rows.count()).toBe(all);
      await page.getByLabel('Criados de').fill(yesterday);
      await page.getByLabel('até').fill(yesterday);
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await page.getByText('Nenhum pagamento encontrado.').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    });
  });

  describe('Empresa', () => {
    test('a new time zone is what every date follows: a payment\'s "Criado em" changes; the change is audited', async () => {
      const created = await client.api(apiKey, 'POST', '/v1/payments', {
        payment_method: 'pix',
        amount: 1500,
      });
      const paymentId = created.body.payment_id as string;
      const createdAt = (await client.api(apiKey, 'GET', `/v1/payments/${paymentId}`)).body
        .created_at as string;
      const createdOn = page
        .locator('.details div')
        .filter({ has: page.locator('dt', { hasText: /^Criado em$/ }) })
        .locator('dd');
      await go(`/pagamentos/${paymentId}`);
      expect(await createdOn.textContent()).toBe(formatDateTime(createdAt, 'America/Sao_Paulo'));

      await nav('Empresa');
      expect(await page.getByLabel('Fuso horário').inputValue()).toBe('America/Sao_Paulo');
      expect(await seriousViolations(page)).toEqual([]);
      // A zone that is not one of the list, forged into the form, is refused on the server.
      await page.locator('#fuso option[value="Asia/Tokyo"]').evaluate((option) => {
        (option as unknown as { value: string }).value = 'Mars/Olympus';
      });
      await page.getByLabel('Fuso horário').selectOption({ label: 'Asia/Tokyo' });
      await page.getByRole('button', { name: 'Salvar fuso horário' }).click();
      await page.getByText('Escolha um fuso horário da lista.').waitFor();
      await page.getByLabel('Fuso horário').selectOption('Asia/Tokyo');
      await page.getByRole('button', { name: 'Salvar fuso horário' }).click();
      await page.getByText('Fuso horário salvo: as datas seguem o novo fuso.').waitFor();
      expect(await page.getByLabel('Fuso horário').inputValue()).toBe('Asia/Tokyo');

      await go(`/pagamentos/${paymentId}`);
      expect(await createdOn.textContent()).toBe(formatDateTime(createdAt, 'Asia/Tokyo'));
      expect(formatDateTime(createdAt, 'Asia/Tokyo')).not.toBe(
        formatDateTime(createdAt, 'America/Sao_Paulo'),
      );

      await nav('Auditoria');
      const entry = page.getByRole('row').filter({ hasText: 'Fuso horário da empresa alterado' });
      expect(await entry.count()).toBe(1);
      expect(await entry.textContent()).toContain('Asia/Tokyo');
    });

    test('Auditoria lists the webhook created (its host, never its secret), the product deactivated and the customer created', async () => {
      await nav('Auditoria');
      const rows = page.getByRole('row');
      const webhook = rows.filter({ hasText: 'Endpoint de webhook criado' });
      expect(await webhook.count()).toBe(1);
      expect(await webhook.textContent()).toContain(`localhost:${receiver.port}`);
      expect(await webhook.textContent()).toMatch(/wh_/);
      expect(await rows.filter({ hasText: 'Produto desativado' }).count()).toBe(1);
      expect(await rows.filter({ hasText: 'Cliente criado' }).textContent()).toMatch(/cust_/);
      expect(await page.content()).not.toContain('whsec_');
      expect(await seriousViolations(page)).toEqual([]);
    });
  });
});
