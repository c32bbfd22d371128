import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { startStack, stackClient, waitFor, type RunningStack, type StackClient } from '@gateway/testkit';
import { hashPassword } from '../src/domain/password';
import { dashboardDatabase, insertMembership, insertUser } from '../src/persistence';
import { launchBrowser } from './support/browser';
import { csrfTokenOf, PASSWORD, sessionCookie, signIn, signUp, uniqueEmail } from './support/accounts';

jest.setTimeout(120_000);

/** What an attacker tries against the dashboard, each refused by the server whatever the page showed. */
describe('the merchant dashboard under attack', () => {
  let stack: RunningStack;
  let client: StackClient;
  let browser: Browser;
  let database: DataSource;
  /** Business A: its owner's e-mail, its sandbox key, a paid payment. */
  const owner = { email: uniqueEmail('dona-a'), key: '', businessId: '', paidPaymentId: '' };
  /** Business B, another merchant: its key and a payment of its own. */
  const other = { key: '', paymentId: '' };

  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ locale: 'pt-BR' });
    return { context, page: await context.newPage() };
  };

  const paidPayment = async (key: string): Promise<{ paymentId: string; businessId: string }> => {
    const created = await client.api(key, 'POST', '/v1/payments', { payment_method: 'pix', amount: 5000 });
    const paymentId = created.body.payment_id as string;
    await client.api(key, 'POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid' });
    const paid = await waitFor(
      async () => {
        const { body } = await client.api(key, 'GET', `/v1/payments/${paymentId}`);
        return body.status === 'paid' && body;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the payment paid' },
    );
    return { paymentId, businessId: paid.business_id as string };
  };

  beforeAll(async () => {
    stack = await startStack();
    client = stackClient(stack);
    browser = await launchBrowser();
    database = await openServiceDatabase({ url: stack.env.database.url, ...dashboardDatabase });
    const a = await newPage();
    owner.key = await signUp(a.page, stack.dashboardUrl, { company: 'Loja A', email: owner.email });
    await a.context.close();
    const paid = await paidPayment(owner.key);
    owner.paidPaymentId = paid.paymentId;
    owner.businessId = paid.businessId;
    const b = await newPage();
    other.key = await signUp(b.page, stack.dashboardUrl, { company: 'Loja B', email: uniqueEmail('dona-b') });
    await b.context.close();
    other.paymentId = (
      await client.api(other.key, 'POST', '/v1/payments', { payment_method: 'pix', amount: 777 })
    ).body.payment_id as string;
  }, 180_000);

  afterAll(async () => {
    await database?.destroy();
    await browser?.close();
    await stack?.stop();
  }, 60_000);

  test('the session cookie is HttpOnly and SameSite=Lax, and a new id is issued at sign-in (no fixation)', async () => {
    const { context, page } = await newPage();
    await page.goto(`${stack.dashboardUrl}/entrar`);
    const before = await sessionCookie(context);
    expect(before).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    // Served over http://127.0.0.1 in the sandbox: a Secure cookie would never come back (production sets it).
    expect(before!.secure).toBe(false);
    await signIn(page, stack.dashboardUrl, owner.email);
    await page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
    const after = await sessionCookie(context);
    expect(after!.value).not.toBe(before!.value);
    expect(after).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

    // An attacker who planted the id before the sign-in holds nothing.
    const planted = await browser.newContext();
    await planted.addCookies([{ ...before!, value: before!.value }]);
    const attacker = await planted.newPage();
    await attacker.goto(`${stack.dashboardUrl}/pagamentos`);
    expect(new URL(attacker.url()).pathname).toBe('/entrar');
    // Signed out, the id is dead too.
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(/\/entrar$/);
    await planted.clearCookies();
    await planted.addCookies([{ ...after!, value: after!.value }]);
    await attacker.goto(`${stack.dashboardUrl}/pagamentos`);
    expect(new URL(attacker.url()).pathname).toBe('/entrar');
    await planted.close();
    await context.close();
  });

  test('a state-changing POST without its CSRF token, with another, or from another origin is refused', async () => {
    const { context, page } = await newPage();
    await signIn(page, stack.dashboardUrl, owner.email);
    await page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
    const token = await csrfTokenOf(page);
    const keysCount = async () =>
      ((await client.admin('GET', `/admin/v1/businesses/${owner.businessId}`)).api_keys as unknown[]).length;
    const keysBefore = await keysCount();
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      context.request.post(`${stack.dashboardUrl}/chaves`, { form, headers, maxRedirects: 0 });

    expect((await post({})).status()).toBe(403);
    expect((await post({ _csrf: randomBytes(32).toString('base64url') })).status()).toBe(403);
    expect((await post({ _csrf: token }, { origin: 'http://evil.test' })).status()).toBe(403);
    expect(await keysCount()).toBe(keysBefore);
    // The same request with its token, from this site, is the one that works.
    const accepted = await post({ _csrf: token }, { origin: stack.dashboardUrl });
    expect(accepted.status()).toBe(201);
    expect(await keysCount()).toBe(keysBefore + 1);
    // Before sign-in too: a sign-in form posted without the token of its page is refused.
    const anonymous = await browser.newContext();
    const signInPost = await anonymous.request.post(`${stack.dashboardUrl}/entrar`, {
      form: { email: owner.email, password: PASSWORD },
      maxRedirects: 0,
    });
    expect(signInPost.status()).toBe(403);
    await anonymous.close();
    await context.close();
  });

  test('repeated wrong passwords lock the account: then even the right one is refused', async () => {
    const email = uniqueEmail('alvo');
    const setup = await newPage();
    await signUp(setup.page, stack.dashboardUrl, { company: 'Loja Alvo', email });
    await setup.context.close();
    const { context, page } = await newPage();
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await signIn(page, stack.dashboardUrl, email, `errada-${attempt}-xxxxxx`);
      await page.getByRole('alert').filter({ hasText: 'E-mail ou senha incorretos.' }).waitFor();
    }
    await signIn(page, stack.dashboardUrl, email, 'errada-5-xxxxxx');
    await page.getByRole('alert').filter({ hasText: 'Conta bloqueada temporariamente' }).waitFor();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/entrar') && r.request().method() === 'POST'),
      signIn(page, stack.dashboardUrl, email, PASSWORD),
    ]);
    expect(response.status()).toBe(429);
    await page.getByRole('alert').filter({ hasText: 'Conta bloqueada temporariamente' }).waitFor();
    await page.goto(`${stack.dashboardUrl}/pagamentos`);
    expect(new URL(page.url()).pathname).toBe('/entrar');
    await context.close();
  });

  test('a viewer sees no "Reembolsar", and the server refuses the refund when it is posted anyway', async () => {
    const email = uniqueEmail('leitura');
    await database.transaction(async (manager) => {
      const user = await insertUser(manager, {
        id: `usr_${randomBytes(8).toString('hex')}`,
        email,
        passwordHash: await hashPassword(PASSWORD, randomBytes(16)),
      });
      await insertMembership(manager, { userId: user.id, businessId: owner.businessId, role: 'viewer' });
    });
    const { context, page } = await newPage();
    await signIn(page, stack.dashboardUrl, email);
    await page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
    expect(await page.locator('.who').textContent()).toContain('(Leitura)');
    await page.goto(`${stack.dashboardUrl}/pagamentos/${owner.paidPaymentId}`);
    expect(await page.getByTestId('situacao').textContent()).toBe('Pago');
    expect(await page.getByRole('button', { name: 'Reembolsar' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Criar chave' }).count()).toBe(0);
    const token = await csrfTokenOf(page);
    const refused = await context.request.post(
      `${stack.dashboardUrl}/pagamentos/${owner.paidPaymentId}/reembolsar`,
      { form: { _csrf: token, amount: '10,00' }, maxRedirects: 0 },
    );
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain('não permite esta ação');
    const keyRefused = await context.request.post(`${stack.dashboardUrl}/chaves`, {
      form: { _csrf: token },
      maxRedirects: 0,
    });
    expect(keyRefused.status()).toBe(403);
    const refunds = await client.api(owner.key, 'GET', `/v1/payments/${owner.paidPaymentId}/refunds`);
    expect(refunds.body.data).toEqual([]);
    await context.close();
  });

  test('a company name with markup is shown as the text it is, and runs nothing', async () => {
    const company =
      'Loja <script>window.__injected = true</script><img src=x onerror="window.__injected = true">';
    const { context, page } = await newPage();
    await signUp(page, stack.dashboardUrl, { company, email: uniqueEmail('marcacao') });
    expect(await page.locator('.business').textContent()).toBe(company);
    await page.goto(`${stack.dashboardUrl}/equipe`);
    expect(await page.locator('.business').textContent()).toBe(company);
    expect(await page.locator('script, img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __injected?: boolean }).__injected)).toBeUndefined();
    await context.close();
  });

  test("another business's payment or key in the URL is not found, and nothing happens to it", async () => {
    const { context, page } = await newPage();
    await signIn(page, stack.dashboardUrl, owner.email);
    await page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
    const shown = await page.goto(`${stack.dashboardUrl}/pagamentos/${other.paymentId}`);
    expect(shown!.status()).toBe(404);
    await page.getByRole('heading', { name: 'Não encontrado' }).waitFor();
    expect(await page.content()).not.toContain('R$ 7,77');
    // The search by id leads to the same answer.
    await page.goto(`${stack.dashboardUrl}/pagamentos?q=${other.paymentId}`);
    await page.getByRole('heading', { name: 'Não encontrado' }).waitFor();

    const token = await csrfTokenOf(page);
    const refund = await context.request.post(
      `${stack.dashboardUrl}/pagamentos/${other.paymentId}/reembolsar`,
      {
        form: { _csrf: token, amount: '1,00' },
        maxRedirects: 0,
      },
    );
    expect(refund.status()).toBe(404);
    const otherPrefix = other.key.slice('sk_test_'.length, 'sk_test_'.length + 12);
    const revoke = await context.request.post(
      `${stack.dashboardUrl}/chaves/${encodeURIComponent(otherPrefix)}/revogar`,
      { form: { _csrf: token }, maxRedirects: 0 },
    );
    expect(revoke.status()).toBe(404);
    const roll = await context.request.post(
      `${stack.dashboardUrl}/chaves/${encodeURIComponent(otherPrefix)}/trocar`,
      {
        form: { _csrf: token },
        maxRedirects: 0,
      },
    );
    expect(roll.status()).toBe(404);
    // B's key still works, and its payment was never touched.
    const payment = await client.api(other.key, 'GET', `/v1/payments/${other.paymentId}`);
    expect(payment.status).toBe(200);
    expect(payment.body.refunded_amount_brl).toBe(0);
    await context.close();
  });
});
