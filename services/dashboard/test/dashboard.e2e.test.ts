import type { Browser, Page } from 'playwright-core';
import {
  daysAfter,
  pspToday,
  startStack,
  stackClient,
  waitFor,
  type RunningStack,
  type StackClient,
} from '@gateway/testkit';
import { launchBrowser, screenshot, seriousViolations } from './support/browser';
import { signUp, uniqueEmail } from './support/accounts';

/** A key's prefix: the 12 characters after `sk_test_`. */
const prefixOf = (key: string): string => key.slice('sk_test_'.length, 'sk_test_'.length + 12);

/** A merchant, from sign-up to a paid and refunded payment and a new key, in Chromium, against the whole stack. */
jest.setTimeout(120_000);

describe('the merchant dashboard, as a person uses it', () => {
  let stack: RunningStack;
  let client: StackClient;
  let browser: Browser;
  let page: Page;
  let apiKey: string;
  let paymentId: string;
  const company = 'Café Açaí & Cia';

  /** Opens `path` and answers the serious or critical accessibility violations found there. */
  const violationsAt = async (path: string) => {
    await page.goto(`${stack.dashboardUrl}${path}`);
    return seriousViolations(page);
  };

  beforeAll(async () => {
    stack = await startStack();
    client = stackClient(stack);
    browser = await launchBrowser();
    page = await (
      await browser.newContext({ locale: 'pt-BR', viewport: { width: 1200, height: 800 } })
    ).newPage();
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  }, 60_000);

  test('sign-up creates the business and shows its sandbox key once', async () => {
    apiKey = await signUp(page, stack.dashboardUrl, { company, email: uniqueEmail('dona') });
    expect(apiKey).toMatch(/^sk_test_/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Chaves de API');
    expect(await page.locator('.business').textContent()).toBe(company);
    // The key works against the public API.
    expect((await client.api(apiKey, 'GET', '/v1/payments?limit=1')).status).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('a payment made through the API is listed in Pagamentos, in reais as a Brazilian reads them', async () => {
    const created = await client.api(apiKey, 'POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 123456,
    });
    expect(created.status).toBe(201);
    paymentId = created.body.payment_id as string;
    await page.getByRole('navigation').getByRole('link', { name: 'Pagamentos' }).click();
    const row = page.getByRole('row').filter({ hasText: paymentId });
    await row.waitFor();
    expect(await row.textContent()).toContain('R$ 1.234,56');
    // Its status as the page words it (a new PIX charge is `processing` once the PSP has it).
    const { status } = (await client.api(apiKey, 'GET', `/v1/payments/${paymentId}`)).body as {
      status: string;
    };
    expect(await row.textContent()).toContain(
      ({ pending: 'Pendente', processing: 'Em processamento' } as Record<string, string>)[status],
    );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'pagamentos');
  });

  test('the status filter and the search by id find it', async () => {
    await page.getByLabel('Situação').selectOption('paid');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('Nenhum pagamento encontrado.').waitFor();
    const { status } = (await client.api(apiKey, 'GET', `/v1/payments/${paymentId}`)).body as {
      status: string;
    };
    await page.getByLabel('Situação').selectOption(status);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByRole('row').filter({ hasText: paymentId }).waitFor();
    await page.getByLabel('Buscar por id').fill(paymentId);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByRole('heading', { name: `Pagamento ${paymentId}` }).waitFor();
  });

  test('paid in the sandbox from its page, it shows paid with its timeline; "Reembolsar" refunds it, a refusal shown as the API words it', async () => {
    // The sandbox pays it from its own page: "Simular pagamento", no API call.
    await page.goto(`${stack.dashboardUrl}/pagamentos/${paymentId}`);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Resultado').selectOption('paid');
    await page.getByRole('button', { name: 'Simular pagamento' }).click();
    await page.getByText('Simulação enviada: a situação muda em instantes.').waitFor();
    await waitFor(
      async () => {
        await page.goto(`${stack.dashboardUrl}/pagamentos/${paymentId}`);
        return (await page.getByTestId('situacao').textContent()) === 'Pago';
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the payment shown paid' },
    );
    await waitFor(
      async () => {
        await page.reload();
        return (await page.locator('.timeline').textContent())?.includes(' — Pagamento confirmado');
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the confirmation in the timeline' },
    );
    expect(await seriousViolations(page)).toEqual([]);

    // The whole amount is more than the business holds after the fee: the public API's refusal is shown as it says it.
    await page.getByLabel(/Valor do reembolso/).fill('1.234,56');
    await page.getByRole('button', { name: 'Reembolsar' }).click();
    await page.getByRole('alert').filter({ hasText: 'Saldo insuficiente' }).waitFor();

    await page.getByLabel(/Valor do reembolso/).fill('1.000,00');
    await page.getByLabel('Motivo (opcional)').fill('<img src=x onerror="window.__injected=true"> devolvido');
    await page.getByRole('button', { name: 'Reembolsar' }).click();
    await page.getByText('Reembolso solicitado.').waitFor();
    // The payment reads refunded in part once the refund is asked; its row reads Concluído once the rail settles it,
    // which may be a page load later.
    await waitFor(
      async () => {
        await page.goto(`${stack.dashboardUrl}/pagamentos/${paymentId}`);
        return (
          (await page.getByTestId('situacao').textContent()) === 'Reembolsado em parte' &&
          (await page.getByRole('row').filter({ hasText: 'Concluído' }).count()) === 1
        );
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the payment shown refunded, its refund settled' },
    );
    expect(await page.getByRole('row').filter({ hasText: 'Concluído' }).textContent()).toContain(
      'R$ 1.000,00',
    );
    // The reason is shown as the text it is.
    await page
      .getByRole('cell', { name: '<img src=x onerror="window.__injected=true"> devolvido' })
      .waitFor();
    expect(await page.evaluate(() => (globalThis as { __injected?: boolean }).__injected)).toBeUndefined();
    await screenshot(page, 'pagamento');
    const payment = await client.api(apiKey, 'GET', `/v1/payments/${paymentId}`);
    expect(payment.body.refunded_amount_brl).toBe(1000);
    // What is left to refund is offered.
    expect(await page.getByLabel(/Valor do reembolso/).inputValue()).toBe('234,56');
  });

  test("money paid over a payment's amount shows on its page, kept apart until it goes back or is credited", async () => {
    const created = await client.api(apiKey, 'POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 10_000,
    });
    expect(created.status).toBe(201);
    const overpaid = created.body.payment_id as string;
    const simulated = await client.api(apiKey, 'POST', `/v1/sandbox/payments/${overpaid}/simulate`, {
      outcome: 'paid',
      amount: 12_500,
    });
    expect(simulated.status).toBeLessThan(300);
    const excess = page.getByRole('table', { name: 'Valores recebidos fora do pagamento' }).getByRole('row');
    await waitFor(
      async () => {
        await page.goto(`${stack.dashboardUrl}/pagamentos/${overpaid}`);
        return (await excess.count()) === 2;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the excess on the payment page' },
    );
    const row = await excess.nth(1).textContent();
    expect(row).toContain('Valor a mais');
    expect(row).toContain('R$ 25,00');
    expect(row).toContain('Retido');
    expect(await seriousViolations(page)).toEqual([]);
  });

  test('a due-date payment paid early shows its due date, what was paid and why; refunds are of what was paid', async () => {
    const customer = await client.api(apiKey, 'POST', '/v1/customers', {
      name: 'Francisco da Silva',
      document_number: '123.456.789-09',
    });
    const today = await pspToday(stack.pspUrl);
    const created = await client.api(apiKey, 'POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 45_000,
      customer_id: customer.body.customer_id,
      pix: {
        due: {
          date: daysAfter(today, 20),
          payable_days_after: 10,
          discount: { until: [{ date: daysAfter(today, 5), amount: 2000 }] },
        },
      },
    });
    expect(created.status).toBe(201);
    const dueId = created.body.payment_id as string;
    const day = (date: string) => date.split('-').reverse().join('/');
    await page.goto(`${stack.dashboardUrl}/pagamentos/${dueId}`);
    expect(await page.getByTestId('vencimento').textContent()).toBe(day(daysAfter(today, 20)));
    expect(await page.getByTestId('pagavel-ate').textContent()).toBe(day(created.body.payable_until));
    expect(await page.getByTestId('valor-pago').count()).toBe(0);

    // Paid early: R$ 430,00 of R$ 450,00.
    await client.payInSandbox(apiKey, dueId);
    await waitFor(
      async () => {
        await page.goto(`${stack.dashboardUrl}/pagamentos/${dueId}`);
        return (await page.getByTestId('situacao').textContent()) === 'Pago';
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the due-date payment shown paid' },
    );
    expect(await page.getByTestId('valor-pago').textContent()).toBe('R$ 430,00');
    expect(await page.getByTestId('composicao').textContent()).toBe(
      'original R$ 450,00 · multa R$ 0,00 · juros R$ 0,00 · abatimento R$ 0,00 · desconto R$ 20,00',
    );
    // The fee and the net add up to what was paid, not to the original.
    const centavos = async (testId: string) =>
      Number((await page.getByTestId(testId).textContent())!.replace(/[^\d]/g, ''));
    expect((await centavos('tarifa')) + (await centavos('liquido'))).toBe(43_000);
    // The form offers what was paid, at most.
    expect(await page.getByLabel(/Valor do reembolso/).inputValue()).toBe('430,00');
    expect(await page.locator('label[for="valor"]').textContent()).toContain('até R$ 430,00');
    expect(await seriousViolations(page)).toEqual([]);

    // Refunding the whole of what was paid is the whole refund.
    await page.getByRole('button', { name: 'Reembolsar' }).click();
    await page.getByText('Reembolso solicitado.').waitFor();
    await waitFor(
      async () => {
        await page.goto(`${stack.dashboardUrl}/pagamentos/${dueId}`);
        return (await page.getByTestId('situacao').textContent()) === 'Reembolsado';
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the due-date payment shown refunded' },
    );
    // Nothing left to offer.
    expect(await page.getByLabel(/Valor do reembolso/).count()).toBe(0);
  });

  test('Saldo shows the balance and its transactions', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Saldo' }).click();
    await page.getByRole('heading', { name: 'Saldo', level: 1 }).waitFor();
    expect(await page.getByText('Disponível', { exact: true }).count()).toBeGreaterThan(0);
    await waitFor(
      async () => {
        await page.reload();
        return (await page.getByRole('row').filter({ hasText: 'Pagamento' }).count()) > 0;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: "the payment's balance transaction" },
    );
    expect(await page.getByRole('row').filter({ hasText: 'R$ 1.234,56' }).count()).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'saldo');
  });

  test('"Criar chave" shows a new key once; "Trocar" rolls it with an overlap; revoked, a key stops working', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Chaves de API' }).click();
    await page.getByRole('button', { name: 'Criar chave' }).click();
    const shown = page.getByTestId('nova-chave');
    await shown.waitFor();
    const newKey = (await shown.textContent())!.trim();
    expect(newKey).toMatch(/^sk_test_/);
    expect(newKey).not.toBe(apiKey);
    expect((await client.api(newKey, 'GET', '/v1/payments?limit=1')).status).toBe(200);
    expect(await seriousViolations(page)).toEqual([]);
    // Shown once: the page read again lists prefixes only.
    await page.goto(`${stack.dashboardUrl}/chaves`);
    expect(await page.getByTestId('nova-chave').count()).toBe(0);
    expect(await page.content()).not.toContain(newKey);
    // Rolled: a successor shown once, the old key working on through the overlap.
    await page.getByRole('button', { name: `Trocar a chave ${prefixOf(newKey)}`, exact: true }).click();
    await page.getByText(/^Chave trocada\. A anterior funciona até \d\d\/\d\d\/\d{4} \d\d:\d\d\.$/).waitFor();
    const successor = (await page.getByTestId('nova-chave').textContent())!.trim();
    expect(successor).toMatch(/^sk_test_/);
    expect(successor).not.toBe(newKey);
    for (const key of [newKey, successor])
      expect((await client.api(key, 'GET', '/v1/payments?limit=1')).status).toBe(200);
    expect(
      await page
        .getByRole('row')
        .filter({ hasText: prefixOf(newKey) })
        .textContent(),
    ).toContain('Trocada');

    const revoke = page.getByRole('button', { name: `Revogar a chave ${prefixOf(successor)}`, exact: true });
    expect(await revoke.count()).toBe(1);
    await revoke.click();
    await page.getByText(/revogada\./).waitFor();
    await waitFor(async () => (await client.api(successor, 'GET', '/v1/payments?limit=1')).status === 401, {
      timeoutMs: 15_000,
      intervalMs: 250,
      what: 'the revoked key refused',
    });
    // The key the dashboard acts with is listed, and cannot be revoked from here.
    expect(await page.getByText('(usada pelo painel)').count()).toBe(1);
  });

  test('every link of the navigation answers, and no page has a serious accessibility violation', async () => {
    for (const name of [
      'Pagamentos',
      'Saldo',
      'Webhooks',
      'Chaves de API',
      'Clientes',
      'Checkouts',
      'Equipe',
    ]) {
      await page.goto(`${stack.dashboardUrl}/pagamentos`);
      const [response] = await Promise.all([
        page.waitForNavigation(),
        page.getByRole('navigation').getByRole('link', { name, exact: true }).click(),
      ]);
      expect({ name, status: response?.status() }).toEqual({ name, status: 200 });
      expect({ name, violations: await seriousViolations(page) }).toEqual({ name, violations: [] });
    }
    const signedOut = await (await browser.newContext()).newPage();
    for (const path of ['/entrar', '/cadastro']) {
      await signedOut.goto(`${stack.dashboardUrl}${path}`);
      expect({ path, violations: await seriousViolations(signedOut) }).toEqual({ path, violations: [] });
    }
    await signedOut.context().close();
    expect(await violationsAt('/equipe')).toEqual([]);
  });
});
