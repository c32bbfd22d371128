import {
  getPspAccount,
  removePspAccount,
  setPspAccount,
  type PspAccountView,
  type SetPspAccount,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { OpenApiDocument } from '../src/http/openapi';
import { OpenApiResponseValidator } from './support/openapi';
import { ADMIN_TOKEN, harnessWithMerchantForTheseTests } from './support/harness';

const ACCOUNT_ID = 'pspacc_AAAAAAAAAAAAAAAAAAAAAAAA';

/** The account as the PIX adapter answers it: no secret, the client id masked. */
const viewOf = (command: SetPspAccount): PspAccountView => ({
  business_id: command.business_id,
  account_id: ACCOUNT_ID,
  profile: command.profile,
  base_url: command.base_url,
  oauth_token_url: command.oauth_token_url,
  client_id_masked: `${command.client_id.slice(0, 4)}****`,
  pix_key: command.pix_key,
  has_client_certificate: Boolean(command.certificate_p12),
  updated_at: new Date().toISOString(),
});

describe("api gateway: a business's own PSP account", () => {
  const h = harnessWithMerchantForTheseTests('gw-psp-account', {
    merchant: 'Loja Conta Própria',
    services: ['pix-adapter'],
  });
  const path = () => `/admin/v1/businesses/${h.merchant.business_id}/psp-account`;
  const account = {
    profile: 'bcb',
    base_url: 'https://pix.example-bank.test/v2/',
    oauth_token_url: 'https://pix.example-bank.test/oauth/token',
    client_id: 'client-of-the-business',
    client_secret: 'secret-of-the-business-never-shown',
    pix_key: '12345678000195',
  };
  const asOperator = (request: ReturnType<typeof h.http.put>) =>
    request.set('Authorization', `Bearer ${ADMIN_TOKEN}`);

  test('PUT hands the account to the PIX adapter and answers it without the secret; GET and DELETE pass through', async () => {
    h.fakes.on(setPspAccount, async (command) => viewOf(command));
    h.fakes.on(getPspAccount, async () => {
      throw new CommandError('NOT_FOUND', 'A empresa usa a conta PSP da plataforma.');
    });
    h.fakes.on(removePspAccount, async () => {
      throw new CommandError('INVALID_STATUS', 'A conta PSP da empresa ainda tem cobranças PIX abertas.');
    });
    const set = await asOperator(h.http.put(path())).send(account);
    expect(set.status).toBe(200);
    expect(JSON.stringify(set.body)).not.toContain(account.client_secret);
    expect(set.body).toMatchObject({ account_id: ACCOUNT_ID, client_id_masked: 'clie****' });
    expect(h.fakes.receivedOf(setPspAccount).at(-1)).toMatchObject({
      business_id: h.merchant.business_id,
      client_secret: account.client_secret,
    });

    const read = await asOperator(h.http.get(path()));
    expect([read.status, read.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const removed = await asOperator(h.http.delete(path()));
    expect([removed.status, removed.body.error.code]).toEqual([422, 'INVALID_STATUS']);
  });

  test('operator only; what the profile needs is checked before anything is sent; the error never quotes the secret', async () => {
    h.fakes.on(setPspAccount, async (command) => viewOf(command));
    const sent = h.fakes.receivedOf(setPspAccount).length;
    expect((await h.http.put(path()).send(account)).status).toBe(401);
    const merchantTry = await h.http.put(path()).set('x-api-key', h.merchant.api_key).send(account);
    expect(merchantTry.status).toBe(401);
    for (const [body, field] of [
      [{ ...account, client_secret: null }, 'client_secret'],
      [{ ...account, profile: 'bb' }, 'developer_app_key'],
      [{ ...account, profile: 'inter' }, 'account_number'],
      [{ ...account, certificate_passphrase: 'only-a-passphrase' }, 'certificate_passphrase'],
      [{ ...account, certificate_p12: 'not base64!' }, 'certificate_p12'],
      [{ ...account, base_url: 'ftp://pix.example-bank.test' }, 'base_url'],
      [{ ...account, profile: 'nubank' }, 'profile'],
    ] as const) {
      const response = await asOperator(h.http.put(path())).send(body);
      expect([response.status, response.body.error.code, response.body.error.message]).toEqual([
        422,
        'INVALID_FIELDS',
        expect.stringContaining(field),
      ]);
      expect(JSON.stringify(response.body)).not.toContain(account.client_secret);
    }
    // Sicoob's token is issued for the client id alone: no secret needed.
    const sicoob = await asOperator(h.http.put(path())).send({
      ...account,
      profile: 'sicoob',
      client_secret: null,
    });
    expect(sicoob.status).toBe(200);
    expect(h.fakes.receivedOf(setPspAccount)).toHaveLength(sent + 1);
  });

  test('every answer of the routes is as the served OpenAPI document states', async () => {
    const document = (await h.http.get('/openapi.json')).body as OpenApiDocument;
    const validator = new OpenApiResponseValidator(document);
    h.fakes.on(setPspAccount, async (command) => viewOf(command));
    h.fakes.on(getPspAccount, async ({ business_id }) =>
      viewOf({ ...(account as SetPspAccount), business_id }),
    );
    h.fakes.on(removePspAccount, async () => ({ removed: true as const }));
    const problems: string[] = [];
    for (const [method, body, status] of [
      ['PUT', account, 200],
      ['PUT', { ...account, client_secret: null }, 422],
      ['GET', undefined, 200],
      ['DELETE', undefined, 200],
    ] as const) {
      const response = await fetch(`${h.gateway.url}${path()}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const check = validator.check(method, path(), {
        status: response.status,
        headers: response.headers,
        body: await response.text(),
      });
      expect([method, response.status]).toEqual([method, status]);
      problems.push(...check.errors.map((error) => `${method}: ${error}`));
    }
    expect(problems).toEqual([]);
  });
});
