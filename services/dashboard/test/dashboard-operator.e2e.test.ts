import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { startStack, type RunningStack } from '@gateway/testkit';
import { dashboardDatabase } from '../src/persistence';
import { launchBrowser, screenshot, seriousViolations } from './support/browser';
import { csrfTokenOf, signIn, signUp, uniqueEmail } from './support/accounts';
import { linkIn, waitForMail } from './support/mail';
import { totpCodes } from './support/totp';

jest.setTimeout(120_000);

const INVITATION_SUBJECT = 'Convite para operar o gateway';
const root = join(__dirname, '..');

/**
 * The operator console, in Chromium against the whole stack: the first operator invited by the dashboard's command,
 * their password and second factor, the businesses and a fee rule, the parked messages, a reconciliation, the audit
 * log. Then what a business's member and a forged form try against it.
 */
describe('the operator console', () => {
  let stack: RunningStack;
  let browser: Browser;
  let database: DataSource;
  let operator: { context: BrowserContext; page: Page };
  const first = { email: uniqueEmail('operadora'), password: 'senha-da-operadora-1', secret: '' };
  const merchant = {
    email: uniqueEmail('dona-marcada'),
    company: 'Loja <script>window.__injected = true</script><img src=x onerror="window.__injected = true">',
    businessId: '',
    page: undefined as unknown as Page,
  };
  /** A code the server accepts now, of a step later than the last one used (each step's code is accepted once). */
  const freshCode = totpCodes();
  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ locale: 'pt-BR', viewport: { width: 1200, height: 900 } });
    return { context, page: await context.newPage() };
  };
  const heading = (page: Page, name: string | RegExp) =>
    page.getByRole('heading', { name, level: 1 }).waitFor();
  const accessible = async (page: Page, path: string) =>
    expect({ path, violations: await seriousViolations(page) }).toEqual({ path, violations: [] });
  const post = async (page: Page, path: string, form: Record<string, string>) =>
    (
      await page.context().request.post(`${stack.dashboardUrl}${path}`, {
        form,
        headers: { origin: stack.dashboardUrl },
        maxRedirects: 0,
      })
    ).status();

  beforeAll(async () => {
    stack = await startStack({ LOGIN_ATTEMPTS_PER_MINUTE: '1000' });
    browser = await launchBrowser();
    database = await openServiceDatabase({ url: stack.env.database.url, ...dashboardDatabase });
    merchant.page = (await newPage()).page;
    await signUp(merchant.page, stack.dashboardUrl, { company: merchant.company, email: merchant.email });
    const rows = (await database.query(
      `SELECT m.business_id FROM dashboard.memberships m JOIN dashboard.users u ON u.id = m.user_id WHERE u.email = $1`,
      [merchant.email],
    )) as Array<{ business_id: string }>;
    merchant.businessId = rows[0]!.business_id;
  }, 180_000);

  afterAll(async () => {
    await database?.destroy();
    await browser?.close();
    await stack?.stop();
  }, 60_000);

  /** The dashboard's `operator:invite` command, run as an operator of the platform runs it. */
  const inviteCommand = (email: string, env: Record<string, string> = {}) =>
    promisify(execFile)(
      join(root, '../../node_modules/.bin/tsx'),
      ['src/commands/operator-invite.ts', email],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          APP_ENV: 'sandbox',
          LOG_LEVEL: 'warn',
          DATABASE_URL: stack.env.database.url,
          REDIS_URL: stack.env.config.REDIS_URL,
          REDIS_PREFIX: stack.env.config.REDIS_PREFIX,
          SMTP_URL: stack.mailCatcherSmtpUrl,
          DASHBOARD_PUBLIC_URL: stack.dashboardUrl,
          ...env,
        },
      },
    );

  test('the first operator is invited by the command, sets a password, and must enrol a second factor first', async () => {
    // With no relay where SMTP_URL points, one line says so (without the URL's credentials), and running it again
    // once mail can be sent mails the link.
    const unsent = await inviteCommand(first.email, {
      SMTP_URL: 'smtp://mailer:s3cret@127.0.0.1:9',
    }).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(unsent?.code).toBe(1);
    expect(unsent?.stderr).toMatch(
      new RegExp(
        `^${first.email}: invited, but mail not sent: .*\\(SMTP_URL at 127\\.0\\.0\\.1:9\\); once mail`,
      ),
    );
    expect(unsent?.stderr).not.toContain('s3cret');
    expect(unsent?.stderr?.trim().split('\n')).toHaveLength(1);
    const { stdout } = await inviteCommand(first.email);
    expect(stdout).toContain(`invitation mailed to ${first.email}`);
    // A business's account is nobody's operator: the command refuses its address.
    await expect(inviteCommand(merchant.email)).rejects.toMatchObject({ code: 1 });

    operator = await newPage();
    const { page } = operator;
    await page.goto(linkIn(await waitForMail(stack.mailCatcherUrl, first.email, INVITATION_SUBJECT)));
    await heading(page, 'Convite de operador');
    await accessible(page, '/operador/convite');
    await page.getByLabel('Crie uma senha').fill(first.password);
    await page.getByRole('button', { name: 'Criar senha' }).click();
    await heading(page, 'Segurança');
    await page.getByText('O console exige a verificação em duas etapas').waitFor();
    // Until the second factor is on, no other page of the console opens, nor any action.
    await page.goto(`${stack.dashboardUrl}/operador/empresas`);
    await heading(page, 'Segurança');
    const csrf = await csrfTokenOf(page);
    expect(await post(page, '/operador/mensagens/reenviar', { _csrf: csrf })).toBe(403);

    await page.getByRole('button', { name: 'Ativar verificação em duas etapas' }).click();
    first.secret = (await page.getByTestId('segredo-totp').textContent())!.replace(/\s/g, '');
    await accessible(page, '/operador/seguranca');
    await page.getByLabel('Código do aplicativo').fill(await freshCode(first.secret));
    await page.getByLabel('Sua senha').fill(first.password);
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Verificação em duas etapas ativada.').waitFor();
    expect(await page.getByTestId('codigos-recuperacao').getByRole('listitem').count()).toBe(10);
  });

  test('signing in as an operator asks for the code, then opens the console', async () => {
    const { context, page } = await newPage();
    await signIn(page, stack.dashboardUrl, first.email, first.password);
    await page.waitForURL(/\/entrar\/codigo$/);
    await page.getByLabel('Código de verificação').fill(await freshCode(first.secret));
    await page.getByRole('button', { name: 'Verificar' }).click();
    await heading(page, 'Empresas');
    // The business pages are not an operator's.
    await page.goto(`${stack.dashboardUrl}/pagamentos`);
    await heading(page, 'Empresas');
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.waitForURL(/\/entrar$/);
    await page.goto(`${stack.dashboardUrl}/operador/empresas`);
    await page.waitForURL(/\/entrar$/);
    await context.close();
  });

  test('Empresas: the businesses, a business name shown as the text it is, a fee rule changed', async () => {
    const { page } = operator;
    await page.getByRole('link', { name: 'Empresas' }).click();
    await heading(page, 'Empresas');
    await accessible(page, '/operador/empresas');
    const link = page.getByRole('link', { name: merchant.company, exact: true });
    await link.waitFor();
    expect(await page.locator('main script, main img').count()).toBe(0);
    await link.click();
    await heading(page, merchant.company);
    expect(await page.evaluate(() => (globalThis as { __injected?: boolean }).__injected)).toBeUndefined();
    expect(await page.getByText(merchant.businessId).count()).toBeGreaterThan(0);
    await accessible(page, '/operador/empresas/{id}');

    await page.getByLabel('Percentual PIX (%)').fill('abc');
    await page.getByLabel('Valor fixo PIX (R$)').fill('0,20');
    await page.getByRole('button', { name: 'Salvar taxa PIX' }).click();
    await page.getByText('Informe um percentual entre 0 e 100').waitFor();
    await page.getByLabel('Percentual PIX (%)').fill('1,5');
    await page.getByLabel('Valor fixo PIX (R$)').fill('0,20');
    await page.getByRole('button', { name: 'Salvar taxa PIX' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Taxa PIX' })
      .filter({ hasText: '1,50 % + R$ 0,20' })
      .waitFor();
    const changes = page.getByRole('table', { name: /Alterações de taxa/ });
    expect(await changes.getByRole('row').nth(1).textContent()).toContain(first.email);
    expect(await changes.getByRole('row').nth(1).textContent()).toContain('1,50 % + R$ 0,20');
    await accessible(page, '/operador/empresas/{id} (taxa salva)');
    await screenshot(page, 'operador-empresa');
  });

  test('Mensagens estacionadas: the count per queue, and a redrive', async () => {
    const { page } = operator;
    await page.getByRole('link', { name: 'Mensagens estacionadas' }).click();
    await heading(page, 'Mensagens estacionadas');
    await page.getByTestId('total-estacionadas').filter({ hasText: 'Total estacionado: 0' }).waitFor();
    await page.getByText('Nenhuma mensagem estacionada.').waitFor();
    await accessible(page, '/operador/mensagens');
    await page.getByRole('button', { name: 'Reenviar todas as filas' }).click();
    await page.getByRole('status').filter({ hasText: '0 mensagem(ns) reenviada(s) às filas.' }).waitFor();
  });

  test('Conciliação: a run now, its report, and the list', async () => {
    const { page } = operator;
    await page.getByRole('link', { name: 'Conciliação' }).click();
    await heading(page, 'Conciliação');
    await accessible(page, '/operador/conciliacao');
    await page.getByRole('button', { name: 'Executar conciliação' }).click();
    await heading(page, /^Conciliação rec_/);
    await page.getByRole('status').filter({ hasText: 'Conciliação executada.' }).waitFor();
    const title = (await page.getByRole('heading', { level: 1 }).textContent())!.trim();
    const id = title.replace('Conciliação ', '');
    expect(await page.getByTestId('conciliacao').textContent()).toContain('Operador');
    await accessible(page, '/operador/conciliacao/{id}');
    await page.getByRole('link', { name: 'Voltar às conciliações' }).click();
    await page.getByRole('link', { name: id }).click();
    await heading(page, title);
  });

  test('Operadores: another operator invited from the console gets the mail', async () => {
    const { page } = operator;
    const second = uniqueEmail('operador-dois');
    await page.getByRole('link', { name: 'Operadores' }).click();
    await heading(page, 'Operadores');
    await page.getByLabel('E-mail').fill(second);
    await page.getByRole('button', { name: 'Convidar operador' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Convite enviado para ${second}.` })
      .waitFor();
    const row = page.getByRole('row').filter({ hasText: second });
    expect(await row.textContent()).toContain('Convite pendente');
    await accessible(page, '/operador/operadores');
    const mail = await waitForMail(stack.mailCatcherUrl, second, INVITATION_SUBJECT);
    expect(mail.text).toContain(first.email);
  });

  test('Auditoria: who did what, when, from where', async () => {
    const { page } = operator;
    await page.getByRole('link', { name: 'Auditoria' }).click();
    await heading(page, 'Auditoria');
    await accessible(page, '/operador/auditoria');
    const rows = page.getByRole('row');
    const fee = rows.filter({ hasText: 'Regra de taxa alterada' });
    expect(await fee.textContent()).toContain(first.email);
    expect(await fee.textContent()).toContain(merchant.businessId);
    expect(await fee.textContent()).toContain('127.0.0.1');
    for (const action of [
      'Conciliação executada',
      'Mensagens estacionadas reenviadas',
      'Operador convidado',
      'Convite de operador aceito',
      'Verificação em duas etapas ativada',
      'Saída do painel',
      'Entrada no painel',
    ])
      expect(await rows.filter({ hasText: action }).count()).toBeGreaterThan(0);
    // The merchant's own log shows nothing of the console.
    await merchant.page.goto(`${stack.dashboardUrl}/auditoria`);
    expect(await merchant.page.getByText('Regra de taxa alterada').count()).toBe(0);
  });

  // The console asks only whether the session is an operator's: a member's role is not consulted, so the owner, the
  // role that may do the most, stands for every role.
  test("a business's member, even its owner, reaches no page or action of the console", async () => {
    const page = merchant.page;
    for (const path of [
      '/operador',
      '/operador/empresas',
      `/operador/empresas/${merchant.businessId}`,
      '/operador/mensagens',
      '/operador/conciliacao',
      '/operador/operadores',
      '/operador/auditoria',
      '/operador/seguranca',
    ]) {
      const response = await page.goto(`${stack.dashboardUrl}${path}`);
      expect({ path, status: response!.status() }).toEqual({ path, status: 403 });
    }
    await heading(page, 'Acesso negado');
    // The member's own session and CSRF token, from a page of their business.
    await page.goto(`${stack.dashboardUrl}/pagamentos`);
    const csrf = await csrfTokenOf(page);
    expect(
      await post(page, `/operador/empresas/${merchant.businessId}/taxas/pix`, {
        _csrf: csrf,
        percent: '0',
        fixed: '0',
      }),
    ).toBe(403);
    expect(await post(page, '/operador/mensagens/reenviar', { _csrf: csrf })).toBe(403);
    expect(await post(page, '/operador/conciliacao', { _csrf: csrf })).toBe(403);
    expect(await post(page, '/operador/operadores', { _csrf: csrf, email: uniqueEmail('intruso') })).toBe(
      403,
    );
    // Nothing of it happened: the rule is the operator's, and no entry names the merchant.
    const entries = (await database.query(
      `SELECT action FROM dashboard.audit_entries WHERE business_id IS NULL AND actor_email = $1`,
      [merchant.email],
    )) as unknown[];
    expect(entries).toEqual([]);
  });

  test("an operator's action without the session's CSRF token, or from another site, is refused", async () => {
    const { page } = operator;
    await page.goto(`${stack.dashboardUrl}/operador/empresas/${merchant.businessId}`);
    const csrf = await csrfTokenOf(page);
    const path = `/operador/empresas/${merchant.businessId}/taxas/pix`;
    expect(await post(page, path, { percent: '9', fixed: '9' })).toBe(403);
    expect(await post(page, path, { _csrf: 'x'.repeat(csrf.length), percent: '9', fixed: '9' })).toBe(403);
    const crossSite = await page.context().request.post(`${stack.dashboardUrl}${path}`, {
      form: { _csrf: csrf, percent: '9', fixed: '9' },
      headers: { origin: 'https://evil.example' },
      maxRedirects: 0,
    });
    expect(crossSite.status()).toBe(403);
    await page.reload();
    const changes = page.getByRole('table', { name: /Alterações de taxa/ });
    expect(await changes.getByRole('row').count()).toBe(2);
    expect(await page.content()).not.toContain('9,00 %');
  });
});
