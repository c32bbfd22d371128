import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { stackClient, startStack, waitFor, type RunningStack } from '@gateway/testkit';
import type { OpenApiDocument } from '../src/http/openapi';
import { launchChromium, screenshotFolder } from './support/browser';

/** The API reference at /docs, opened by a developer in a real browser against a sandbox stack. */
describe('the API reference page in a real browser', () => {
  let stack: RunningStack;
  let browser: Browser;
  let artifacts: string;
  let openApi: OpenApiDocument;
  let apiKey: string;

  /** What the page did that its policy forbids or the test should know: CSP violations, errors, foreign requests. */
  interface Watched {
    page: Page;
    violations: string[];
    errors: string[];
    foreignRequests: string[];
  }

  const openReference = async (): Promise<Watched> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const watched: Watched = { page, violations: [], errors: [], foreignRequests: [] };
    await page.exposeFunction('reportViolation', (violation: string) => watched.violations.push(violation));
    // The page's own `securitypolicyviolation` events, reported out of the browser (globalThis is its window).
    await page.addInitScript(() => {
      const browserWindow = globalThis as any;
      browserWindow.document.addEventListener('securitypolicyviolation', (event: any) =>
        browserWindow.reportViolation(`${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    page.on('pageerror', (error) => watched.errors.push(error.message));
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== stack.gatewayUrl) watched.foreignRequests.push(request.url());
    });
    await page.goto(`${stack.gatewayUrl}/docs`);
    await page.locator('.opblock').first().waitFor();
    return watched;
  };

  beforeAll(async () => {
    artifacts = screenshotFolder('api-reference');
    stack = await startStack();
    ({ apiKey } = await stackClient(stack).createBusiness('Loja da Documentação', {
      pix: { percent_bps: 99, fixed_centavos: 0 },
    }));
    openApi = (await (await fetch(`${stack.gatewayUrl}/openapi.json`)).json()) as OpenApiDocument;
    browser = await launchChromium();
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  test('renders every documented operation and webhook, from our own origin only, within its Content-Security-Policy', async () => {
    const { page, violations, errors, foreignRequests } = await openReference();
    const rendered = await page
      .locator('.opblock')
      .evaluateAll((blocks) =>
        blocks.map(
          (block) =>
            `${block.querySelector('.opblock-summary-method')?.textContent} ${block
              .querySelector('.opblock-summary-path')
              ?.getAttribute('data-path')}`,
        ),
      );
    const documented = [
      ...Object.entries(openApi.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
      ),
      ...Object.keys(openApi.webhooks).map((type) => `POST ${type}`),
    ];
    expect(rendered.sort()).toEqual(documented.sort());
    await expect(page.locator('.info .title').textContent()).resolves.toContain(openApi.info.title);
    // Open a schema-heavy operation fully, so models and examples render under the policy too.
    await page.locator('#operations-Payments-createPayment .opblock-summary').click();
    await page.locator('#operations-Payments-createPayment .model-example').first().waitFor();
    await page.screenshot({ path: join(artifacts, 'reference.png'), fullPage: false });
    expect({ violations, errors, foreignRequests }).toEqual({
      violations: [],
      errors: [],
      foreignRequests: [],
    });
  }, 60_000);

  test('"try it out" with a sandbox API key creates a real PIX payment and reads it back', async () => {
    const { page, violations, errors, foreignRequests } = await openReference();
    await page.locator('.auth-wrapper .authorize').click();
    const apiKeyScheme = page.locator('.modal-ux .auth-container').filter({ hasText: 'x-api-key' });
    await apiKeyScheme.locator('input').fill(apiKey);
    await apiKeyScheme.locator('.auth-btn-wrapper .authorize').click();
    await apiKeyScheme.locator('.auth-btn-wrapper .btn-done').click();

    const create = page.locator('#operations-Payments-createPayment');
    await create.locator('.opblock-summary').click();
    await create.locator('.try-out__btn').click();
    await create
      .locator('textarea.body-param__text')
      .fill(JSON.stringify({ payment_method: 'pix', amount: 4321, currency: 'brl' }));
    await create.locator('.execute').click();
    const status = create.locator('.live-responses-table .response .response-col_status').first();
    await waitFor(async () => ((await status.textContent())?.trim() === '201' ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: 'the 201 of the payment created from the page',
    });
    const answer = JSON.parse(
      (await create.locator('.live-responses-table .response-col_description pre').first().textContent()) ??
        '',
    ) as { payment_id: string; status: string; pix: { copia_e_cola: string } };
    expect(answer).toMatchObject({
      status: 'processing',
      pix: { copia_e_cola: expect.stringMatching(/^000201/) },
    });
    await status.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, 'try-it-out.png'), fullPage: false });

    const read = page.locator('#operations-Payments-getPayment');
    await read.locator('.opblock-summary').click();
    await read.locator('.try-out__btn').click();
    await read.locator('input[placeholder="payment_id"]').fill(answer.payment_id);
    await read.locator('.execute').click();
    const readStatus = read.locator('.live-responses-table .response .response-col_status').first();
    await waitFor(async () => ((await readStatus.textContent())?.trim() === '200' ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: 'the 200 of the payment read from the page',
    });

    // The payment is real: the API answers it to the same key.
    const response = await fetch(`${stack.gatewayUrl}/v1/payments/${answer.payment_id}`, {
      headers: { 'x-api-key': apiKey },
    });
    expect(await response.json()).toMatchObject({ payment_id: answer.payment_id, amount_brl: 43.21 });
    expect({ violations, errors, foreignRequests }).toEqual({
      violations: [],
      errors: [],
      foreignRequests: [],
    });
  }, 60_000);
});
