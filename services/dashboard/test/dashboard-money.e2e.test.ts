import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { startStack, stackClient, waitFor, type RunningStack, type StackClient } from '@gateway/testkit';
import { hashPassword } from '../src/domain/password';
import { dashboardDatabase, insertMembership, insertUser } from '../src/persistence';
import { launchBrowser, seriousViolations } from './support/browser';
import { forgetLastStepOf, totpCodes } from './support/totp';
import { csrfTokenOf, PASSWORD, signIn, signUp, uniqueEmail } from './support/accounts';

jest.setTimeout(180_000);

const CNPJ = '12345678000195';

/**
 * The money side of the dashboard in Chromium against the whole stack: the owner enrols a second factor, signs in with
 * it, sets the payout account and requests a payout with a fresh code each time, sees it paid, and downloads the
 * month's statement; then what an attacker tries against those pages.
 */
describe('the dashboard: second factor, payout account, payouts and statements', () => {
  let stack: RunningStack;
  let client: StackClient;
  let browser: Browser;
  let database: DataSource;
  let context: BrowserContext;
  let page: Page;
  const owner = { email: uniqueEmail('dona-saque'), key: '', businessId: '', secret: '' };
  let payoutId = '';
  // Eight codes of one person in a row: the server's memory of the last step is forgotten rather than waited out.
  const codeOf = totpCodes(
    forgetLastStepOf({ query: (sql, parameters) => database.query(sql, parameters) }, owner.email),
  );
  /** A code of the owner's authenticator the server accepts now. */
  const freshCode = (): Promise<string> => codeOf(owner.secret);

  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const created = await browser.newContext({ locale: 'pt-BR', viewport: { width: 1200, height: 900 } });
    return { context: created, page: await created.newPage() };
  };

  /** A person of the owner's business with `role`, signed in in a context of their own. */
  const member = async (role: 'admin' | 'developer' | 'viewer') => {
    const email = uniqueEmail(role);
    await database.transaction(async (manager) => {
      const user = await insertUser(manager, {
        id: `usr_${randomBytes(8).toString('hex')}`,
        email,
        passwordHash: await hashPassword(PASSWORD, randomBytes(16)),
      });
      await insertMembership(manager, { userId: user.id, businessId: owner.businessId, role });
    });
    const signedIn = await newPage();
    await signIn(signedIn.page, stack.dashboardUrl, email);
    await signedIn.page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
    return signedIn;
  };

  const violations = async (path: string) => {
    await page.goto(`${stack.dashboardUrl}${path}`);
    return { path, violations: await seriousViolations(page) };
  };

  beforeAll(async () => {
    // Money is available as soon as it is paid (the sandbox's default, said here since the test relies on it); every
    // sign-in, sign-up and code of the test comes from 127.0.0.1, so no per-address limit is in the way.
    stack = await startStack({ SETTLEMENT_DELAY_PIX: '0', LOGIN_ATTEMPTS_PER_MINUTE: '1000' });
    client = stackClient(stack);
    browser = await launchBrowser();
    database = await openServiceDatabase({ url: stack.env.database.url, ...dashboardDatabase });
    ({ context, page } = await newPage());
    owner.key = await signUp(page, stack.dashboardUrl, { company: 'Padaria do Saque', email: owner.email });
    const businesses = (await database.query(
      `SELECT m.business_id FROM dashboard.memberships m JOIN dashboard.users u ON u.id = m.user_id WHERE u.email = $1`,
      [owner.email],
    )) as Array<{ business_id: string }>;
    owner.businessId = businesses[0]!.business_id;
  }, 180_000);

  afterAll(async () => {
    await database?.destroy();
    await browser?.close();
    await stack?.stop();
  }, 60_000);

  test('an owner without a second factor is sent to enrol, and the server refuses the payout account and payouts', async () => {
    await page.goto(`${stack.dashboardUrl}/saldo/conta`);
    await page.getByText('ative antes a verificação em duas etapas').waitFor();
    expect(await page.getByRole('button', { name: 'Salvar conta de saque' }).count()).toBe(0);
    await page.goto(`${stack.dashboardUrl}/saldo/saques`);
    expect(await page.getByRole('button', { name: 'Solicitar saque' }).count()).toBe(0);
    const token = await csrfTokenOf(page);
    const account = await context.request.post(`${stack.dashboardUrl}/saldo/conta`, {
      form: { _csrf: token, pix_key: CNPJ, pix_key_type: 'cnpj', holder_document: CNPJ, code: '123456' },
      maxRedirects: 0,
    });
    expect(account.status()).toBe(403);
    const payout = await context.request.post(`${stack.dashboardUrl}/saldo/saques`, {
      form: { _csrf: token, amount: '1,00', code: '123456' },
      maxRedirects: 0,
    });
    expect(payout.status()).toBe(403);
    // The gateway never heard of it: no account was set.
    const refused = await client.api(owner.key, 'POST', '/v1/payouts', { amount: 100 });
    expect(refused.body.error).toMatchObject({ code: 'NO_PAYOUT_ACCOUNT' });
  });

  test('Segurança: the secret as a QR code and as text, confirmed by a first code; recovery codes shown once', async () => {
    await page.goto(`${stack.dashboardUrl}/pagamentos`);
    await page.getByRole('link', { name: 'Segurança' }).click();
    await page.getByRole('button', { name: 'Ativar verificação em duas etapas' }).click();
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    // The image is drawn under the content security policy (no broken image).
    expect(
      await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    owner.secret = (await page.getByTestId('segredo-totp').textContent())!.replace(/\s/g, '');
    expect(owner.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect({ path: '/seguranca', violations: await seriousViolations(page) }).toEqual({
      path: '/seguranca',
      violations: [],
    });

    await page.getByLabel('Código do aplicativo').fill('000000');
    await page.getByLabel('Sua senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('alert').filter({ hasText: 'Código incorreto' }).waitFor();
    await page.getByLabel('Código do aplicativo').fill(await freshCode());
    await page.getByLabel('Sua senha').fill('uma senha errada');
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('alert').filter({ hasText: 'Senha incorreta.' }).waitFor();
    await page.getByLabel('Código do aplicativo').fill(await freshCode());
    await page.getByLabel('Sua senha').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Verificação em duas etapas ativada.').waitFor();
    const codes = await page.getByTestId('codigos-recuperacao').getByRole('listitem').allTextContents();
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code.trim()).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
    expect({ path: '/seguranca', violations: await seriousViolations(page) }).toEqual({
      path: '/seguranca',
      violations: [],
    });
    // Shown once: the page read again has neither the codes nor the secret.
    await page.reload();
    await page.getByTestId('verificacao-ativa').waitFor();
    const content = await page.content();
    expect(content).not.toContain(codes[0]!.trim());
    expect(content).not.toContain(owner.secret.slice(0, 8));
    expect(await page.getByText('Códigos de recuperação ainda não usados: 10.').count()).toBe(1);
  });

  test('signing in again asks for the code after the password; a wrong one is refused, the right one signs in', async () => {
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(/\/entrar$/);
    await signIn(page, stack.dashboardUrl, owner.email);
    await page.waitForURL(/\/entrar\/codigo$/);
    // The password alone opens nothing.
    await page.goto(`${stack.dashboardUrl}/pagamentos`);
    expect(new URL(page.url()).pathname).toBe('/entrar');
    await signIn(page, stack.dashboardUrl, owner.email);
    await page.waitForURL(/\/entrar\/codigo$/);
    expect({ path: '/entrar/codigo', violations: await seriousViolations(page) }).toEqual({
      path: '/entrar/codigo',
      violations: [],
    });
    await page.getByLabel('Código de verificação').fill('000000');
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.getByRole('alert').filter({ hasText: 'Código incorreto ou já usado' }).waitFor();
    await page.getByLabel('Código de verificação').fill(await freshCode());
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.getByRole('heading', { name: 'Pagamentos', level: 1 }).waitFor();
  });

  test('the owner sets the payout account with a fresh code; the same code sent again is refused', async () => {
    await page.getByRole('navigation', { name: 'Seções' }).getByRole('link', { name: 'Saldo' }).click();
    await page
      .getByRole('navigation', { name: 'Saldo' })
      .getByRole('link', { name: 'Conta de saque' })
      .click();
    await page.getByText('Nenhuma conta de saque cadastrada pelo painel.').waitFor();
    expect({ path: '/saldo/conta', violations: await seriousViolations(page) }).toEqual({
      path: '/saldo/conta',
      violations: [],
    });
    await page.getByLabel('Tipo da chave PIX').selectOption('cnpj');
    await page.getByLabel('Chave PIX', { exact: true }).fill('12.345.678/0001-95');
    await page.getByLabel('CPF ou CNPJ do titular').fill('12.345.678/0001-95');
    await page.getByLabel('Código do autenticador').fill('000000');
    await page.getByRole('button', { name: 'Salvar conta de saque' }).click();
    await page.getByRole('alert').filter({ hasText: 'Código incorreto ou já usado' }).waitFor();
    // The gateway's own refusal of a key that is not in its type's form, as it words it.
    await page.getByLabel('Chave PIX', { exact: true }).fill('123');
    const code = await freshCode();
    await page.getByLabel('Código do autenticador').fill(code);
    await page.getByRole('button', { name: 'Salvar conta de saque' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).not.toContain('Código incorreto');
    await page.getByLabel('Chave PIX', { exact: true }).fill('12.345.678/0001-95');
    const accepted = await freshCode();
    await page.getByLabel('Código do autenticador').fill(accepted);
    await page.getByRole('button', { name: 'Salvar conta de saque' }).click();
    await page.getByText('Conta de saque salva.').waitFor();
    const shown = await page.getByTestId('conta-de-saque').textContent();
    expect(shown).toContain('CNPJ');
    expect(shown).toContain('•••• 0195');
    expect(shown).toContain(owner.email);
    expect(shown).not.toContain(CNPJ);

    // Replayed: the same code, with a valid form, is refused by the server.
    const replay = await context.request.post(`${stack.dashboardUrl}/saldo/conta`, {
      form: {
        _csrf: await csrfTokenOf(page),
        pix_key: 'outra@loja.test',
        pix_key_type: 'email',
        holder_document: CNPJ,
        code: accepted,
      },
      maxRedirects: 0,
    });
    expect(replay.status()).toBe(422);
    expect(await replay.text()).toContain('Código incorreto ou já usado');
    await page.reload();
    expect(await page.getByTestId('conta-de-saque').textContent()).toContain('•••• 0195');
  });

  test('a payment paid and settled; "Solicitar saque" with a fresh code: a refusal as the API words it, then a payout paid', async () => {
    const created = await client.api(owner.key, 'POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 250_000,
    });
    const paymentId = created.body.payment_id as string;
    await client.api(owner.key, 'POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid' });
    await waitFor(
      async () => ((await client.api(owner.key, 'GET', '/v1/balance')).body.available_brl as number) > 1000,
      { timeoutMs: 30_000, intervalMs: 250, what: 'the payment available' },
    );
    await page.getByRole('navigation', { name: 'Saldo' }).getByRole('link', { name: 'Saques' }).click();
    await page.getByText('Nenhum saque ainda.').waitFor();
    expect({ path: '/saldo/saques', violations: await seriousViolations(page) }).toEqual({
      path: '/saldo/saques',
      violations: [],
    });
    await page.getByLabel('Valor do saque (R$)').fill('999.999,00');
    await page.getByLabel('Código do autenticador').fill(await freshCode());
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await page.getByRole('alert').filter({ hasText: 'não cobre o saque de R$ 999.999,00' }).waitFor();

    await page.getByLabel('Valor do saque (R$)').fill('1.000,00');
    await page.getByLabel('Código do autenticador').fill(await freshCode());
    await page.getByRole('button', { name: 'Solicitar saque' }).click();
    await page.waitForURL(/\/saldo\/saques\/po_/);
    payoutId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    await waitFor(
      async () => {
        await page.reload();
        return (await page.getByTestId('situacao').textContent()) === 'Pago';
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the payout shown paid' },
    );
    expect(await page.locator('main').textContent()).toContain('R$ 1.000,00');
    expect({ path: '/saldo/saques/:id', violations: await seriousViolations(page) }).toEqual({
      path: '/saldo/saques/:id',
      violations: [],
    });
    await page.getByRole('link', { name: 'Todos os saques' }).click();
    const row = page.getByRole('row').filter({ hasText: payoutId });
    expect(await row.textContent()).toContain('R$ 1.000,00');
    expect(await row.textContent()).toContain('Pago');
    const payouts = await client.api(owner.key, 'GET', '/v1/payouts');
    expect((payouts.body.data as unknown[]).length).toBe(1);
  });

  test('Extratos: the month chosen downloads its CSV, with the payment and the payout', async () => {
    await page.getByRole('navigation', { name: 'Saldo' }).getByRole('link', { name: 'Extratos' }).click();
    expect({ path: '/saldo/extratos', violations: await seriousViolations(page) }).toEqual({
      path: '/saldo/extratos',
      violations: [],
    });
    const month = new Date().toISOString().slice(0, 7);
    expect(await page.getByLabel('Mês').inputValue()).toBe(month);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Baixar extrato' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`extrato-${month}.csv`);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toBe('id,created_at,type,source_id,amount_brl,fee_brl,net_brl,available_on,description');
    expect(lines.some((line) => line.includes(',payment,') && line.includes(',2500.00,'))).toBe(true);
    expect(lines.some((line) => line.includes(`,payout,${payoutId},-1000.00,`))).toBe(true);
    expect(lines.some((line) => line.startsWith('closing_balance_brl'))).toBe(true);
    // A month that is not one is refused with the form again.
    const wrong = await page.goto(`${stack.dashboardUrl}/saldo/extratos/baixar?mes=2026-13`);
    expect(wrong!.status()).toBe(422);
    await page.getByRole('alert').filter({ hasText: 'Escolha um mês' }).waitFor();
  });

  test('Auditoria keeps the second factor enabled, the payout account changed and the payout requested, by whom', async () => {
    await page.goto(`${stack.dashboardUrl}/auditoria`);
    const text = (await page.getByRole('table').getByRole('row').allTextContents()).join('\n');
    for (const action of [
      'Verificação em duas etapas ativada',
      'Conta de saque alterada',
      'Saque solicitado',
    ])
      expect(text).toContain(action);
    expect(text).toContain(payoutId);
    expect(text).toContain(owner.email);
  });

  describe('under attack', () => {
    test('a developer or an admin posting a payout account change is refused, and a developer a payout', async () => {
      for (const role of ['developer', 'admin'] as const) {
        const signedIn = await member(role);
        await signedIn.page.goto(`${stack.dashboardUrl}/saldo/conta`);
        expect(await signedIn.page.getByRole('button', { name: 'Salvar conta de saque' }).count()).toBe(0);
        const refused = await signedIn.context.request.post(`${stack.dashboardUrl}/saldo/conta`, {
          form: {
            _csrf: await csrfTokenOf(signedIn.page),
            pix_key: 'ladrao@fora.test',
            pix_key_type: 'email',
            holder_document: CNPJ,
            // The role is refused before any code is looked at.
            code: '123456',
          },
          maxRedirects: 0,
        });
        expect({ role, status: refused.status() }).toEqual({ role, status: 403 });
        if (role === 'developer') {
          await signedIn.page.goto(`${stack.dashboardUrl}/saldo/saques`);
          expect(await signedIn.page.getByRole('button', { name: 'Solicitar saque' }).count()).toBe(0);
          const payout = await signedIn.context.request.post(`${stack.dashboardUrl}/saldo/saques`, {
            form: { _csrf: await csrfTokenOf(signedIn.page), amount: '1,00' },
            maxRedirects: 0,
          });
          expect(payout.status()).toBe(403);
        }
        await signedIn.context.close();
      }
      await page.goto(`${stack.dashboardUrl}/saldo/conta`);
      expect(await page.getByTestId('conta-de-saque').textContent()).toContain('•••• 0195');
      expect(((await client.api(owner.key, 'GET', '/v1/payouts')).body.data as unknown[]).length).toBe(1);
    });

    test("another business's payout id in the URL is not found", async () => {
      const other = await newPage();
      await signUp(other.page, stack.dashboardUrl, { company: 'Outra Loja', email: uniqueEmail('outra') });
      const shown = await other.page.goto(`${stack.dashboardUrl}/saldo/saques/${payoutId}`);
      expect(shown!.status()).toBe(404);
      expect(await other.page.content()).not.toContain('R$ 1.000,00');
      await other.context.close();
    });

    test('the new forms refuse a POST without their CSRF token', async () => {
      const forms: Array<[string, Record<string, string>]> = [
        ['/saldo/conta', { pix_key: CNPJ, pix_key_type: 'cnpj', holder_document: CNPJ, code: '123456' }],
        ['/saldo/saques', { amount: '1,00', code: '123456' }],
        ['/seguranca/autenticador', {}],
        ['/seguranca/autenticador/confirmar', { code: '123456' }],
        ['/entrar/codigo', { code: '123456' }],
      ];
      for (const [path, form] of forms) {
        const refused = await context.request.post(`${stack.dashboardUrl}${path}`, { form, maxRedirects: 0 });
        expect({ path, status: refused.status() }).toEqual({ path, status: 403 });
        const forged = await context.request.post(`${stack.dashboardUrl}${path}`, {
          form: { ...form, _csrf: randomBytes(32).toString('base64url') },
          maxRedirects: 0,
        });
        expect({ path, status: forged.status() }).toEqual({ path, status: 403 });
      }
    });

    test('wrong codes at sign-in lock the second step, the right code refused too', async () => {
      const attacker = await newPage();
      await signIn(attacker.page, stack.dashboardUrl, owner.email);
      await attacker.page.waitForURL(/\/entrar\/codigo$/);
      for (let attempt = 1; attempt <= 4; attempt += 1) {
        await attacker.page.getByLabel('Código de verificação').fill(String(100000 + attempt));
        await attacker.page.getByRole('button', { name: 'Verificar' }).click();
        await attacker.page.getByRole('alert').filter({ hasText: 'Código incorreto' }).waitFor();
      }
      await attacker.page.getByLabel('Código de verificação').fill('100005');
      await attacker.page.getByRole('button', { name: 'Verificar' }).click();
      await attacker.page
        .getByRole('alert')
        .filter({ hasText: 'Verificação bloqueada temporariamente' })
        .waitFor();
      await attacker.page.getByLabel('Código de verificação').fill(await freshCode());
      await attacker.page.getByRole('button', { name: 'Verificar' }).click();
      await attacker.page
        .getByRole('alert')
        .filter({ hasText: 'Verificação bloqueada temporariamente' })
        .waitFor();
      await attacker.page.goto(`${stack.dashboardUrl}/pagamentos`);
      expect(new URL(attacker.page.url()).pathname).toBe('/entrar');
      await attacker.context.close();
    });
  });

  test('no new page has a serious accessibility violation as a viewer sees it', async () => {
    const viewer = await member('viewer');
    for (const path of [
      '/saldo',
      '/saldo/extratos',
      '/saldo/saques',
      `/saldo/saques/${payoutId}`,
      '/saldo/conta',
      '/seguranca',
    ]) {
      await viewer.page.goto(`${stack.dashboardUrl}${path}`);
      expect({ path, violations: await seriousViolations(viewer.page) }).toEqual({ path, violations: [] });
    }
    expect(await viewer.page.getByRole('button', { name: 'Solicitar saque' }).count()).toBe(0);
    await viewer.context.close();
    expect(await violations('/saldo')).toEqual({ path: '/saldo', violations: [] });
  });
});
