import { randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';

/** A unique e-mail address for one test's account. */
export const uniqueEmail = (label: string): string => `${label}-${randomBytes(6).toString('hex')}@loja.test`;

export const PASSWORD = 'senha-forte-de-teste-123';

/** Signs a new business up through the form; answers the sandbox key the page shows once. */
export async function signUp(
  page: Page,
  dashboardUrl: string,
  account: { company: string; email: string; password?: string },
): Promise<string> {
  await page.goto(`${dashboardUrl}/cadastro`);
  await page.getByLabel('Nome da empresa').fill(account.company);
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Senha').fill(account.password ?? PASSWORD);
  await page.getByRole('button', { name: 'Criar conta' }).click();
  const key = page.getByTestId('nova-chave');
  await key.waitFor();
  return (await key.textContent())!.trim();
}

export async function signIn(
  page: Page,
  dashboardUrl: string,
  email: string,
  password = PASSWORD,
): Promise<void> {
  await page.goto(`${dashboardUrl}/entrar`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Senha').fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
}

/** The CSRF token of the page's forms (every signed-in page has one: the sign-out form). */
export async function csrfTokenOf(page: Page): Promise<string> {
  return (await page.locator('input[name="_csrf"]').first().getAttribute('value'))!;
}

export async function sessionCookie(context: BrowserContext) {
  return (await context.cookies()).find((cookie) => cookie.name === 'dashboard_session');
}
