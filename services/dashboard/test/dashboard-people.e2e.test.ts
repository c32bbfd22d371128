import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { startStack, type RunningStack } from '@gateway/testkit';
import { dashboardDatabase, findUserByEmail, InvitationEntity } from '../src/persistence';
import { launchBrowser, seriousViolations } from './support/browser';
import { totpCodes } from './support/totp';
import { csrfTokenOf, PASSWORD, signIn, signUp, uniqueEmail } from './support/accounts';
import { linkIn, mailsTo, waitForMail } from './support/mail';

jest.setTimeout(120_000);

/**
 * People, e-mail and the audit log, in Chromium against the whole stack: every mail is read from the mail catcher the
 * launcher runs, as the dashboard sent it over SMTP. Then what an attacker tries against them.
 */
describe('the dashboard’s people: verification, reset, invitations, the audit log', () => {
  let stack: RunningStack;
  let browser: Browser;
  let database: DataSource;
  const owner = { email: uniqueEmail('dona'), password: PASSWORD, page: undefined as unknown as Page };
  const developer = {
    email: uniqueEmail('dev'),
    password: 'senha-do-desenvolvedor-1',
    page: undefined as unknown as Page,
  };
  const admin = { email: uniqueEmail('admin'), password: 'senha-da-administradora-1' };
  const pending = { email: uniqueEmail('pendente'), link: '' };

  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ locale: 'pt-BR' });
    return { context, page: await context.newPage() };
  };
  const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 }).waitFor();
  /** A form posted by hand with the page's CSRF token, as a forged request from a signed-in browser would be. */
  const forge = async (page: Page, path: string, form: Record<string, string>) =>
    (
      await page.context().request.post(`${stack.dashboardUrl}${path}`, {
        form: { _csrf: await csrfTokenOf(page), ...form },
        headers: { origin: stack.dashboardUrl },
        maxRedirects: 0,
      })
    ).status();
  const userId = async (email: string) => (await findUserByEmail(database.manager, email))!.id;

  /** Invites `email` as `roleLabel` from the Equipe page of `page`; answers the link of the mail it got. */
  const invite = async (page: Page, email: string, roleLabel: string): Promise<string> => {
    await page.goto(`${stack.dashboardUrl}/equipe`);
    await page.getByLabel('E-mail', { exact: true }).fill(email);
    await page.getByLabel('Papel', { exact: true }).selectOption({ label: roleLabel });
    await page.getByRole('button', { name: 'Convidar' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Convite enviado para ${email}.` })
      .waitFor();
    return linkIn(await waitForMail(stack.mailCatcherUrl, email, `Convite para Loja das Pessoas`));
  };

  /** Accepts an invitation link in a new browser, creating the account's password; answers the signed-in page. */
  const accept = async (link: string, password: string): Promise<Page> => {
    const { page } = await newPage();
    await page.goto(link);
    await heading(page, 'Aceitar convite');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Crie uma senha').fill(password);
    await page.getByRole('button', { name: 'Aceitar convite' }).click();
    await heading(page, 'Pagamentos');
    return page;
  };

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    database = await openServiceDatabase({ url: stack.env.database.url, ...dashboardDatabase });
    owner.page = (await newPage()).page;
  }, 150_000);

  afterAll(async () => {
    await database?.destroy();
    await browser?.close();
    await stack?.stop();
  }, 60_000);

  test('sign-up mails a verification link; confirming on its page verifies the address, once', async () => {
    const { page } = owner;
    await signUp(page, stack.dashboardUrl, { company: 'Loja das Pessoas', email: owner.email });
    await page.getByRole('status').filter({ hasText: 'Seu e-mail ainda não foi verificado' }).waitFor();
    const mail = await waitForMail(stack.mailCatcherUrl, owner.email, 'Confirme seu e-mail');
    const link = linkIn(mail);
    expect(link.startsWith(`${stack.dashboardUrl}/verificar-email?token=`)).toBe(true);

    // Until verified, inviting is refused on the server.
    expect(await forge(page, '/equipe/convites', { email: uniqueEmail('cedo'), role: 'viewer' })).toBe(403);

    await page.goto(link);
    await heading(page, 'Confirmar e-mail');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Confirmar e-mail' }).click();
    await heading(page, 'E-mail verificado');
    expect(await seriousViolations(page)).toEqual([]);

    // The same link again: used.
    const again = await page.goto(link);
    expect(again!.status()).toBe(400);
    await heading(page, 'Link inválido');

    await page.goto(`${stack.dashboardUrl}/equipe`);
    await heading(page, 'Equipe');
    expect(await page.getByRole('row').filter({ hasText: owner.email }).textContent()).toContain(
      'Verificado',
    );
    expect(await page.getByText('Seu e-mail ainda não foi verificado').count()).toBe(0);
  });

  test('an owner invites a developer, who accepts from the mail, signs in with that role and is refused an admin action', async () => {
    const link = await invite(owner.page, developer.email, 'Desenvolvedor');
    expect(await seriousViolations(owner.page)).toEqual([]);
    await owner.page
      .getByRole('table', { name: 'Convites pendentes' })
      .getByRole('row')
      .filter({ hasText: developer.email })
      .waitFor();

    developer.page = await accept(link, developer.password);
    expect(await developer.page.locator('.who').textContent()).toContain('(Desenvolvedor)');
    expect(
      await developer.page.getByRole('navigation').getByRole('link', { name: 'Auditoria' }).count(),
    ).toBe(0);
    // Accepted: the link works no more.
    expect((await developer.page.goto(link))!.status()).toBe(400);

    // Signed out and in again, with the password chosen on the invitation's page: the same role.
    await developer.page.goto(`${stack.dashboardUrl}/pagamentos`);
    await developer.page.getByRole('button', { name: 'Sair' }).click();
    await developer.page.waitForURL(/\/entrar$/);
    await signIn(developer.page, stack.dashboardUrl, developer.email, developer.password);
    await heading(developer.page, 'Pagamentos');
    expect(await developer.page.locator('.who').textContent()).toContain('(Desenvolvedor)');

    // An admin's actions, refused on the server whatever the page showed.
    expect(await forge(developer.page, '/equipe/convites', { email: uniqueEmail('x'), role: 'viewer' })).toBe(
      403,
    );
    expect(
      await forge(developer.page, `/equipe/membros/${await userId(developer.email)}/papel`, {
        role: 'owner',
      }),
    ).toBe(403);
    expect((await developer.page.goto(`${stack.dashboardUrl}/auditoria`))!.status()).toBe(403);
    await developer.page.goto(`${stack.dashboardUrl}/equipe`);
    expect(await developer.page.getByRole('button', { name: 'Convidar' }).count()).toBe(0);
  });

  test('an admin cannot make anyone owner, not even by a forged POST; the business keeps its one owner', async () => {
    const adminPage = await accept(await invite(owner.page, admin.email, 'Administrador'), admin.password);
    await adminPage.goto(`${stack.dashboardUrl}/equipe`);
    // The page offers no owner role to an admin ...
    expect(
      await adminPage.getByLabel('Papel', { exact: true }).locator('option').allTextContents(),
    ).not.toContain('Proprietário');
    // ... and the server refuses it when sent anyway.
    const developerId = await userId(developer.email);
    expect(await forge(adminPage, `/equipe/membros/${developerId}/papel`, { role: 'owner' })).toBe(403);
    expect(await forge(adminPage, '/equipe/convites', { email: uniqueEmail('dono'), role: 'owner' })).toBe(
      403,
    );
    expect(await forge(adminPage, `/equipe/membros/${await userId(owner.email)}/remover`, {})).toBe(403);
    // What an admin may: a developer made viewer and back.
    expect(await forge(adminPage, `/equipe/membros/${developerId}/papel`, { role: 'viewer' })).toBe(200);
    expect(await forge(adminPage, `/equipe/membros/${developerId}/papel`, { role: 'developer' })).toBe(200);
    // The owner cannot step down while the only one.
    expect(
      await forge(owner.page, `/equipe/membros/${await userId(owner.email)}/papel`, { role: 'admin' }),
    ).toBe(409);
  });

  test("another business's invitation and members are not found; an expired invitation link is refused", async () => {
    pending.link = await invite(owner.page, pending.email, 'Leitura');
    const invitation = (await database.manager.findOneBy(InvitationEntity, { email: pending.email }))!;
    const other = await newPage();
    await signUp(other.page, stack.dashboardUrl, { company: 'Outra Loja', email: uniqueEmail('outra') });
    await other.page.goto(`${stack.dashboardUrl}/equipe`);
    const developerId = await userId(developer.email);
    expect(await forge(other.page, `/equipe/convites/${invitation.id}/revogar`, {})).toBe(404);
    expect(await forge(other.page, `/equipe/membros/${developerId}/papel`, { role: 'viewer' })).toBe(404);
    expect(await forge(other.page, `/equipe/membros/${developerId}/remover`, {})).toBe(404);
    // Nothing changed in the first business.
    expect((await database.manager.findOneBy(InvitationEntity, { id: invitation.id }))!.revokedAt).toBeNull();
    await owner.page.goto(`${stack.dashboardUrl}/equipe`);
    expect(await owner.page.getByRole('row').filter({ hasText: developer.email }).textContent()).toContain(
      'Desenvolvedor',
    );
    await other.context.close();

    // Past its expiry the link opens nothing, and cannot be accepted by a form posted anyway.
    await database.manager.update(
      InvitationEntity,
      { id: invitation.id },
      { expiresAt: new Date(Date.now() - 1000) },
    );
    const late = await newPage();
    expect((await late.page.goto(pending.link))!.status()).toBe(400);
    await heading(late.page, 'Link inválido');
    const token = new URL(pending.link).searchParams.get('token')!;
    await late.page.goto(`${stack.dashboardUrl}/entrar`);
    expect(await forge(late.page, '/convites/aceitar', { token, password: 'uma senha comprida' })).toBe(400);
    expect(await findUserByEmail(database.manager, pending.email)).toBeNull();
    await late.context.close();
  });

  test('a forgotten password: one answer for any address; the mailed link resets it once and ends the old sessions', async () => {
    // A session from before the reset.
    const before = await newPage();
    await signIn(before.page, stack.dashboardUrl, owner.email, owner.password);
    await heading(before.page, 'Pagamentos');

    const { page } = await newPage();
    const ask = async (email: string) => {
      await page.goto(`${stack.dashboardUrl}/esqueci-senha`);
      await page.getByLabel('E-mail').fill(email);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/esqueci-senha') && r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Enviar link' }).click(),
      ]);
      await page.getByRole('status').waitFor();
      return { status: response.status(), text: await page.locator('main').textContent() };
    };
    await page.goto(`${stack.dashboardUrl}/entrar`);
    await page.getByRole('link', { name: 'Esqueci minha senha' }).click();
    await heading(page, 'Esqueci minha senha');
    expect(await seriousViolations(page)).toEqual([]);
    const nobody = uniqueEmail('ninguem');
    const unknown = await ask(nobody);
    const known = await ask(owner.email);
    expect(known).toEqual(unknown);
    expect(known.status).toBe(200);

    const link = linkIn(await waitForMail(stack.mailCatcherUrl, owner.email, 'Redefinição de senha'));
    expect(await mailsTo(stack.mailCatcherUrl, nobody)).toEqual([]);
    await page.goto(link);
    await heading(page, 'Nova senha');
    expect(await seriousViolations(page)).toEqual([]);
    owner.password = 'a-nova-senha-da-dona-1';
    await page.getByLabel('Nova senha').fill(owner.password);
    await page.getByRole('button', { name: 'Salvar nova senha' }).click();
    // No session from the link alone: signing in again, with the new password.
    await heading(page, 'Entrar no painel');
    await page.getByRole('status').filter({ hasText: 'Senha redefinida. Entre com a nova senha.' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${stack.dashboardUrl}/pagamentos`);
    expect(new URL(page.url()).pathname).toBe('/entrar');

    // Used: the link again opens nothing, and a form posted with its token changes nothing.
    expect((await page.goto(link))!.status()).toBe(400);
    const token = new URL(link).searchParams.get('token')!;
    await page.goto(`${stack.dashboardUrl}/entrar`);
    expect(await forge(page, '/redefinir-senha', { token, password: 'senha-do-atacante-1' })).toBe(400);

    // The session from before is dead; the old password too.
    await before.page.goto(`${stack.dashboardUrl}/pagamentos`);
    expect(new URL(before.page.url()).pathname).toBe('/entrar');
    await signIn(before.page, stack.dashboardUrl, owner.email, PASSWORD);
    await before.page.getByRole('alert').filter({ hasText: 'E-mail ou senha incorretos.' }).waitFor();
    await signIn(before.page, stack.dashboardUrl, owner.email, owner.password);
    await heading(before.page, 'Pagamentos');
    await page.context().close();
    owner.page = before.page;
  });

  test('Auditoria shows who did what, newest first, with the client address and user agent; owners and admins only', async () => {
    const { page } = owner;
    await page.getByRole('navigation').getByRole('link', { name: 'Auditoria' }).click();
    await heading(page, 'Auditoria');
    expect(await seriousViolations(page)).toEqual([]);
    const rows = page.getByRole('table').getByRole('row');
    const text = (await rows.allTextContents()).join('\n');
    for (const action of [
      'Cadastro da empresa',
      'E-mail de verificação enviado',
      'E-mail verificado',
      'Convite enviado',
      'Convite aceito',
      'Papel alterado',
      'Redefinição de senha pedida',
      'Senha redefinida',
      'Entrada no painel',
      'Tentativa de entrada recusada',
      'Saída do painel',
    ])
      expect(text).toContain(action);
    expect(text).toMatch(/(^|[^:])127\.0\.0\.1/m);
    expect(text).toContain('HeadlessChrome');
    // Newest first: the last thing done was the owner's sign-in after the reset.
    expect(await rows.nth(1).textContent()).toContain('Entrada no painel');
    expect(await rows.nth(1).textContent()).toContain(owner.email);
    // Another business's entries are not here.
    expect(text).not.toContain('Outra Loja');
  });

  test('a person with a second factor gives its code after a password reset and after accepting an invitation with their password', async () => {
    const person = { email: uniqueEmail('totp'), password: 'senha-de-quem-tem-totp-1', secret: '' };
    const codeOf = totpCodes();
    /** A code of a 30-second step not used yet, well inside it (the server refuses a step's code twice). */
    const freshCode = (): Promise<string> => codeOf(person.secret);
    const own = await newPage();
    const { page } = own;
    await signUp(page, stack.dashboardUrl, {
      company: 'Loja com Autenticador',
      email: person.email,
      password: person.password,
    });
    await page.goto(`${stack.dashboardUrl}/seguranca`);
    await page.getByRole('button', { name: 'Ativar verificação em duas etapas' }).click();
    person.secret = (await page.getByTestId('segredo-totp').textContent())!.replace(/\s/g, '');
    await page.getByLabel('Código do aplicativo').fill(await freshCode());
    await page.getByLabel('Sua senha').fill(person.password);
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Verificação em duas etapas ativada.').waitFor();
    await own.context.close();

    // (1) The mailbox resets the password, and no more: the sign-in that follows asks for the code.
    const mailbox = await newPage();
    await mailbox.page.goto(`${stack.dashboardUrl}/esqueci-senha`);
    await mailbox.page.getByLabel('E-mail').fill(person.email);
    await mailbox.page.getByRole('button', { name: 'Enviar link' }).click();
    await mailbox.page.getByRole('status').waitFor();
    await mailbox.page.goto(
      linkIn(await waitForMail(stack.mailCatcherUrl, person.email, 'Redefinição de senha')),
    );
    person.password = 'a-nova-senha-com-totp-1';
    await mailbox.page.getByLabel('Nova senha').fill(person.password);
    await mailbox.page.getByRole('button', { name: 'Salvar nova senha' }).click();
    await heading(mailbox.page, 'Entrar no painel');
    await mailbox.page.goto(`${stack.dashboardUrl}/pagamentos`);
    expect(new URL(mailbox.page.url()).pathname).toBe('/entrar');
    await signIn(mailbox.page, stack.dashboardUrl, person.email, person.password);
    await mailbox.page.waitForURL(/\/entrar\/codigo$/);
    await mailbox.page.goto(`${stack.dashboardUrl}/pagamentos`);
    expect(new URL(mailbox.page.url()).pathname).toBe('/entrar');
    await mailbox.context.close();

    // (2) Invited elsewhere, they accept with their existing password: the code is asked for before any session.
    const link = await invite(owner.page, person.email, 'Leitura');
    const invited = await newPage();
    await invited.page.goto(link);
    await heading(invited.page, 'Aceitar convite');
    await invited.page.getByLabel('Senha').fill(person.password);
    await invited.page.getByRole('button', { name: 'Aceitar convite' }).click();
    await invited.page.waitForURL(/\/entrar\/codigo$/);
    expect(await seriousViolations(invited.page)).toEqual([]);
    expect((await invited.page.goto(`${stack.dashboardUrl}/equipe`))!.url()).toMatch(/\/entrar\/?$/);
    await invited.page.goto(`${stack.dashboardUrl}/entrar/codigo`);
    await invited.page.getByLabel('Código de verificação').fill('000000');
    await invited.page.getByRole('button', { name: 'Verificar' }).click();
    await invited.page.getByRole('alert').filter({ hasText: 'Código incorreto' }).waitFor();
    await invited.page.getByLabel('Código de verificação').fill(await freshCode());
    await invited.page.getByRole('button', { name: 'Verificar' }).click();
    await heading(invited.page, 'Pagamentos');
    await invited.context.close();
  });

  test('wrong passwords typed to accept an invitation lock the account, as at sign-in', async () => {
    const person = { email: uniqueEmail('bloqueio'), password: 'senha-de-quem-vai-travar-1' };
    const own = await newPage();
    await signUp(own.page, stack.dashboardUrl, {
      company: 'Loja Bloqueada',
      email: person.email,
      password: person.password,
    });
    await own.context.close();
    const link = await invite(owner.page, person.email, 'Leitura');
    const { page, context } = await newPage();
    await page.goto(link);
    const tryPassword = async (password: string): Promise<number> => {
      await page.getByLabel('Senha').fill(password);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/convites/aceitar') && r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Aceitar convite' }).click(),
      ]);
      await page.getByRole('alert').waitFor();
      return response.status();
    };
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) statuses.push(await tryPassword(`senha-errada-${attempt}`));
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect(await page.getByRole('alert').textContent()).toContain('Conta bloqueada temporariamente');
    expect(await seriousViolations(page)).toEqual([]);
    // Locked: the right password is refused here and at sign-in.
    expect(await tryPassword(person.password)).toBe(429);
    expect(await page.getByRole('alert').textContent()).toContain('Conta bloqueada temporariamente');
    await signIn(page, stack.dashboardUrl, person.email, person.password);
    await page.getByRole('alert').filter({ hasText: 'Conta bloqueada temporariamente' }).waitFor();
    await context.close();
  });
});
