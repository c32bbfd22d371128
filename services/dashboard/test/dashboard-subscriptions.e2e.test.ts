import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import {
  daysAfter,
  pspToday,
  startStack,
  stackClient,
  waitFor,
  type RunningStack,
  type StackClient,
} from '@gateway/testkit';
import { hashPassword } from '../src/domain/password';
import { dashboardDatabase, insertMembership, insertUser } from '../src/persistence';
import { launchBrowser, seriousViolations } from './support/browser';
import { csrfTokenOf, PASSWORD, signIn, signUp, uniqueEmail } from './support/accounts';

jest.setTimeout(240_000);

/** `date` (`YYYY-MM-DD`) `n` months later, the same day of the month. */
function monthsAfter(date: string, n: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1 + n, d)).toISOString().slice(0, 10);
}

/**
 * Subscriptions (Pix Automático) in the dashboard, in Chromium against the whole stack and the PSP simulator: a
 * subscription created through the public API listed and shown, authorized by the sandbox payer, its cycles paid by
 * the sandbox clock and listed on its page, cancelled from the dashboard behind a confirmation step; what a viewer,
 * another business and hostile input get.
 */
describe('the dashboard: subscriptions', () => {
  let stack: RunningStack;
  let client: StackClient;
  let browser: Browser;
  let database: DataSource;
  const owner = { email: uniqueEmail('dona-assinaturas'), key: '', businessId: '' };
  const other = { key: '', subscriptionId: '' };

  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ locale: 'pt-BR', viewport: { width: 1200, height: 900 } });
    return { context, page: await context.newPage() };
  };

  const api = (key: string, method: string, path: string, body?: unknown) =>
    client.api(key, method, path, body);

  /** A subscription of the push journey (the request goes to the payer's bank), created through the public API. */
  const subscribe = async (
    key: string,
    amount: number,
  ): Promise<{ id: string; customerId: string; start: string }> => {
    const customer = await api(key, 'POST', '/v1/customers', {
      name: 'Joana Pereira',
      document_number: '529.982.247-25',
    });
    expect(customer.status).toBe(201);
    const start = daysAfter(await pspToday(stack.pspUrl), 10);
    const created = await api(key, 'POST', '/v1/subscriptions', {
      customer_id: customer.body.customer_id,
      amount,
      interval: 'monthly',
      start_date: start,
      description: 'Plano mensal',
      authorization: {
        journey: 'push',
        payer_account: { ispb: '60701190', branch: '0001', account: '123456' },
      },
    });
    expect(created.status).toBe(201);
    return {
      id: created.body.subscription_id as string,
      customerId: customer.body.customer_id as string,
      start,
    };
  };

  const subscriptionOf = async (key: string, id: string) =>
    (await api(key, 'GET', `/v1/subscriptions/${id}`)).body;

  /** A person of the owner's business with `role`, signed in in a context of their own. */
  const member = async (role: 'owner' | 'viewer') => {
    let email = owner.email;
    if (role !== 'owner') {
      email = uniqueEmail(role);
      await database.transaction(async (manager) => {
        const user = await insertUser(manager, {
          id: `usr_${randomBytes(8).toString('hex')}`,
          email,
          passwordHash: await hashPassword(PASSWORD, randomBytes(16)),
        });
        await insertMembership(manager, { userId: user.id, businessId: owner.businessId, role });
      });
    }
    const signedIn = await newPage();
    await signIn(signedIn.page, stack.dashboardUrl, email);
    await signedIn.page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
    return signedIn;
  };

  beforeAll(async () => {
    stack = await startStack();
    client = stackClient(stack);
    browser = await launchBrowser();
    database = await openServiceDatabase({ url: stack.env.database.url, ...dashboardDatabase });
    const a = await newPage();
    owner.key = await signUp(a.page, stack.dashboardUrl, {
      company: 'Academia Movimento',
      email: owner.email,
    });
    await a.context.close();
    const businesses = (await database.query(
      `SELECT m.business_id FROM dashboard.memberships m JOIN dashboard.users u ON u.id = m.user_id WHERE u.email = $1`,
      [owner.email],
    )) as Array<{ business_id: string }>;
    owner.businessId = businesses[0]!.business_id;
    const b = await newPage();
    other.key = await signUp(b.page, stack.dashboardUrl, {
      company: 'Outra Academia',
      email: uniqueEmail('outra'),
    });
    await b.context.close();
    other.subscriptionId = (await subscribe(other.key, 4_321)).id;
  }, 240_000);

  afterAll(async () => {
    await database?.destroy();
    await browser?.close();
    await stack?.stop();
  }, 60_000);

  test('a subscription from the API: listed, authorized, its cycles paid and shown, cancelled from the dashboard', async () => {
    const { id, customerId, start } = await subscribe(owner.key, 9_990);
    const { context, page } = await member('owner');

    // Listed under Assinaturas, and found by its customer.
    await page.getByRole('navigation', { name: 'Seções' }).getByRole('link', { name: 'Assinaturas' }).click();
    await page.getByRole('heading', { name: 'Assinaturas', level: 1 }).waitFor();
    const row = page.getByRole('row').filter({ hasText: id });
    expect(await row.textContent()).toContain('R$ 99,90');
    expect(await row.textContent()).toContain('Aguardando autorização');
    await page.getByLabel('Cliente').fill(customerId);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(/cliente=/);
    expect(await page.getByRole('row').filter({ hasText: 'sub_' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // Its page while the payer's bank has the request.
    await page.getByRole('link', { name: id }).click();
    await page.getByRole('heading', { name: `Assinatura ${id}` }).waitFor();
    expect(await page.getByTestId('situacao').textContent()).toBe('Aguardando autorização');
    expect(await page.getByTestId('valor').textContent()).toBe('R$ 99,90');
    expect(await page.getByTestId('proximo-ciclo').textContent()).toBe(
      `Ciclo 1, vence em ${start.split('-').reverse().join('/')}`,
    );
    expect(await page.locator('main').textContent()).toContain('Jornada 1');
    expect(await page.locator('main').textContent()).toContain('Nenhum ciclo cobrado ainda.');
    expect(await seriousViolations(page)).toEqual([]);

    // The sandbox payer authorizes it: active.
    expect(
      (await api(owner.key, 'POST', `/v1/sandbox/subscriptions/${id}/simulate`, { outcome: 'authorize' }))
        .status,
    ).toBe(202);
    await waitFor(async () => (await subscriptionOf(owner.key, id)).status === 'active', {
      timeoutMs: 60_000,
      what: 'the subscription active',
    });
    await page.reload();
    expect(await page.getByTestId('situacao').textContent()).toBe('Ativa');

    // The sandbox clock past the third due date: three cycles paid, each on the page, each linking to its payment. A
    // week past it: a debit due on a weekend or a bank holiday is made on the next business day (up to four days later
    // around Carnival), and cycle 4 opens only ten days before its due date.
    const to = daysAfter(monthsAfter(start, 2), 7);
    expect((await api(owner.key, 'POST', `/v1/sandbox/subscriptions/${id}/advance`, { to })).status).toBe(
      202,
    );
    await waitFor(
      async () => {
        const { body } = await api(owner.key, 'GET', `/v1/payments?subscription_id=${id}&limit=100`);
        const cycles = body.data as Array<{ status: string }>;
        return cycles.length === 3 && cycles.every((cycle) => cycle.status === 'paid');
      },
      { timeoutMs: 90_000, what: 'three paid cycles' },
    );
    await page.reload();
    const cycleRows = page.getByRole('table', { name: /Ciclos desta assinatura/ }).locator('tbody tr');
    expect(await cycleRows.count()).toBe(3);
    const cells = await Promise.all(
      (await cycleRows.all()).map(async (row) =>
        (await row.locator('td').allTextContents()).map((text) => text.trim()),
      ),
    );
    expect(cells.map((c) => c[0])).toEqual(['1', '2', '3']);
    for (const c of cells) {
      expect(c[3]).toBe('R$ 99,90');
      expect(c[4]).toBe('Pago');
    }
    // A cycle's payment page says whose cycle it is, and leads back.
    await cycleRows.nth(1).getByRole('link').click();
    await page.getByRole('heading', { name: /^Pagamento / }).waitFor();
    expect(await page.getByTestId('assinatura').textContent()).toBe(`Assinatura ${id}, ciclo 2`);
    await page.getByTestId('assinatura').click();
    await page.getByRole('heading', { name: `Assinatura ${id}` }).waitFor();

    // Cancel: a confirmation step first; going back changes nothing.
    await page.getByRole('link', { name: 'Cancelar assinatura' }).click();
    await page.getByRole('heading', { name: 'Cancelar assinatura', level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect((await subscriptionOf(owner.key, id)).status).toBe('active');
    await page.getByRole('button', { name: 'Confirmar cancelamento' }).click();
    await page.getByRole('status').filter({ hasText: 'Assinatura cancelada.' }).waitFor();
    expect(await page.getByTestId('situacao').textContent()).toBe('Cancelada pela empresa, a pedido');
    expect(await page.getByRole('link', { name: 'Cancelar assinatura' }).count()).toBe(0);
    expect(await subscriptionOf(owner.key, id)).toMatchObject({
      status: 'cancelled',
      cancelled_by: 'merchant',
      cancellation_reason: 'requested',
    });
    // The cycles stay paid and listed.
    expect(await cycleRows.count()).toBe(3);

    // Cancelling again: the API's refusal shown as the dashboard shows refusals.
    const token = await csrfTokenOf(page);
    const again = await context.request.post(`${stack.dashboardUrl}/assinaturas/${id}/cancelar`, {
      form: { _csrf: token },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(422);
    expect(await again.text()).toContain('class="alert error" role="alert"');

    // The cancelled filter finds it; the audit log has the cancel, by whom.
    await page.goto(`${stack.dashboardUrl}/assinaturas?status=cancelled`);
    expect(await page.getByRole('row').filter({ hasText: id }).count()).toBe(1);
    await page.goto(`${stack.dashboardUrl}/auditoria`);
    const audited = page.getByRole('row').filter({ hasText: 'Assinatura cancelada' });
    expect(await audited.count()).toBe(1);
    expect(await audited.textContent()).toContain(id);
    expect(await audited.textContent()).toContain(owner.email);
    await context.close();
  });

  test('a viewer sees a subscription but no cancel, and the server refuses the cancel posted anyway', async () => {
    const { id } = await subscribe(owner.key, 1_500);
    const { context, page } = await member('viewer');
    await page.goto(`${stack.dashboardUrl}/assinaturas/${id}`);
    expect(await page.getByTestId('situacao').textContent()).toBe('Aguardando autorização');
    expect(await page.getByRole('link', { name: 'Cancelar assinatura' }).count()).toBe(0);
    const confirm = await page.goto(`${stack.dashboardUrl}/assinaturas/${id}/cancelar`);
    expect(confirm!.status()).toBe(403);
    const token = await csrfTokenOf(page);
    const refused = await context.request.post(`${stack.dashboardUrl}/assinaturas/${id}/cancelar`, {
      form: { _csrf: token },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain('não permite esta ação');
    expect((await subscriptionOf(owner.key, id)).status).toBe('pending_authorization');
    await context.close();
  });

  test("another business's subscription is not found, and nothing happens to it", async () => {
    const { context, page } = await member('owner');
    const shown = await page.goto(`${stack.dashboardUrl}/assinaturas/${other.subscriptionId}`);
    expect(shown!.status()).toBe(404);
    await page.getByRole('heading', { name: 'Não encontrado' }).waitFor();
    expect(await page.content()).not.toContain('R$ 43,21');
    await page.goto(`${stack.dashboardUrl}/assinaturas?q=${other.subscriptionId}`);
    await page.getByRole('heading', { name: 'Não encontrado' }).waitFor();
    expect(
      (await page.goto(`${stack.dashboardUrl}/assinaturas/${other.subscriptionId}/cancelar`))!.status(),
    ).toBe(404);
    const token = await csrfTokenOf(page);
    const cancel = await context.request.post(
      `${stack.dashboardUrl}/assinaturas/${other.subscriptionId}/cancelar`,
      { form: { _csrf: token }, maxRedirects: 0 },
    );
    expect(cancel.status()).toBe(404);
    expect((await subscriptionOf(other.key, other.subscriptionId)).status).toBe('pending_authorization');
    await context.close();
  });

  test('hostile input in the filters and the address gets the dashboard error shape, never a 500', async () => {
    const { context, page } = await member('owner');
    const huge = 'x'.repeat(6000);
    const paths = [
      `/assinaturas?cliente=${encodeURIComponent('cust_\u0000abc')}`,
      `/assinaturas?cliente=${huge}`,
      `/assinaturas?cliente[]=a&cliente[]=b&status[]=active`,
      `/assinaturas?status=${encodeURIComponent("active' OR 1=1 --")}`,
      `/assinaturas?depois=${encodeURIComponent('sub_\u0000')}`,
      `/assinaturas?depois=${huge}`,
      `/assinaturas/${encodeURIComponent('sub_\u0000')}`,
      `/assinaturas/${huge}`,
      `/assinaturas/${encodeURIComponent('<script>alert(1)</script>')}`,
    ];
    for (const path of paths) {
      const answer = await context.request.get(`${stack.dashboardUrl}${path}`, { maxRedirects: 0 });
      const text = await answer.text();
      // A page of the dashboard (its layout, its title), a 2xx or a 4xx: never a 500 nor another shape.
      expect({ path: path.slice(0, 80), status: answer.status() < 500 }).toEqual({
        path: path.slice(0, 80),
        status: true,
      });
      expect(text).toContain('· Painel</title>');
      expect(text).toContain('<nav aria-label="Seções">');
      expect(text).not.toContain('<script>alert(1)</script>');
    }
    // The list with a filter the API refuses keeps its form and says why.
    await page.goto(`${stack.dashboardUrl}/assinaturas?cliente=${encodeURIComponent('cust_\u0000abc')}`);
    await page.getByRole('heading', { name: 'Assinaturas', level: 1 }).waitFor();
    await context.close();
  });
});
