import { randomBytes } from 'node:crypto';
import {
  accountCallbackToken,
  newPublicId,
  pixRefundRequested,
  removePspAccount,
  setPspAccount,
  type RefundSettled,
} from '@gateway/contracts';
import { createPspSimulator, type RunningPspSimulator } from '@gateway/psp-simulator';
import { aRefundRequest, createTestDatabase, testLogger, waitFor, type TestDatabase } from '@gateway/testkit';
import { PspError } from '../src/clients/psp/psp-error';
import { ApiPixClient } from '../src/clients/psp/api-pix-client';
import {
  anOpenPixCharge,
  chargeBecomes,
  openCharge,
  simulateOutcome,
  startAdapterAgainstSandboxPsp,
  type AdapterAgainstSandboxPsp,
} from './support/adapter';

/** The business's own bank: a second PSP, with books, credentials and a receiving key of its own. */
const BUSINESS_PSP = {
  clientId: `business-client-${randomBytes(4).toString('hex')}`,
  clientSecret: `business-secret-${randomBytes(12).toString('hex')}`,
  pixKey: 'a3c1e5d7-0b2f-4e6a-8c9d-1f2e3a4b5c6d',
};

describe('charges of a business with its own PSP account go to that account, and only there', () => {
  let adapter: AdapterAgainstSandboxPsp;
  let businessDatabase: TestDatabase;
  let businessPsp: RunningPspSimulator;
  /** The business's bank console, outside the adapter: what its PSP holds. */
  let businessConsole: ApiPixClient;

  beforeAll(async () => {
    businessDatabase = await createTestDatabase();
    businessPsp = await createPspSimulator({
      databaseUrl: businessDatabase.url,
      ...BUSINESS_PSP,
      callbackRetryDelaysMs: [50, 100, 200],
      logger: testLogger('business-psp'),
    }).start(0);
    businessConsole = new ApiPixClient({
      baseUrl: businessPsp.url,
      pathPrefix: '/v2',
      oauthTokenUrl: `${businessPsp.url}/oauth/token`,
      clientId: BUSINESS_PSP.clientId,
      clientSecret: BUSINESS_PSP.clientSecret,
      timeoutMs: 2000,
      maxRetries: 0,
    });
    adapter = await startAdapterAgainstSandboxPsp('psp-account-charges', () => ({
      PSP_ACCOUNT_SEALING_KEY: randomBytes(32).toString('base64'),
    }));
  });
  afterAll(async () => {
    await adapter?.bed.close();
    await businessConsole?.close();
    await businessPsp?.close();
    await businessDatabase?.drop();
  });

  async function businessWithOwnAccount(): Promise<{ businessId: string; accountId: string }> {
    const businessId = newPublicId('biz');
    const reply = await adapter.bed.request(setPspAccount, {
      business_id: businessId,
      profile: 'bcb',
      base_url: `${businessPsp.url}/v2`,
      oauth_token_url: `${businessPsp.url}/oauth/token`,
      client_id: BUSINESS_PSP.clientId,
      client_secret: BUSINESS_PSP.clientSecret,
      pix_key: BUSINESS_PSP.pixKey,
    });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return { businessId, accountId: reply.result.account_id };
  }

  const notFoundAt = (client: ApiPixClient, txid: string) =>
    client.getCharge(txid).then(
      () => false,
      (error: unknown) => error instanceof PspError && error.kind === 'not_found',
    );

  test('the cob is opened at the business PSP for its key, paid there, its callback reaches its account, its devolução is made there', async () => {
    const { bed, payer } = adapter;
    const { businessId, accountId } = await businessWithOwnAccount();
    const charge = await openCharge(bed, anOpenPixCharge({ business_id: businessId, amount_centavos: 4200 }));

    // The payment service learns the money is not the platform's: the ledger books only the fee.
    expect(charge.custody).toBe('direct');
    const cob = await businessConsole.getCharge(charge.txid);
    expect({ chave: cob.chave, valor: cob.valor.original }).toEqual({
      chave: BUSINESS_PSP.pixKey,
      valor: '42.00',
    });
    expect(await notFoundAt(payer, charge.txid)).toBe(true);
    const [row] = (await bed.service.dataSource.query('SELECT psp_account_id FROM charges WHERE txid = $1', [
      charge.txid,
    ])) as Array<{ psp_account_id: string | null }>;
    expect(row?.psp_account_id).toBe(accountId);

    // While the charge is open, the business cannot leave its account.
    const leaving = await bed.request(removePspAccount, { business_id: businessId });
    expect(leaving.ok ? null : leaving.error.code).toBe('INVALID_STATUS');

    // Paid at the business's PSP: its callback comes to the account's own path and the cob is read back there.
    const paidReply = await simulateOutcome(bed, charge.payment_id, 'paid');
    expect(paidReply.ok).toBe(true);
    const paid = await chargeBecomes(bed, charge.txid, 'paid');
    const sources = (await bed.service.dataSource.query(
      `SELECT source, outcome FROM callbacks_received WHERE txid = $1`,
      [charge.txid],
    )) as Array<{ source: string; outcome: string }>;
    expect(sources).toEqual([{ source: 'callback', outcome: 'applied' }]);

    // The refund becomes a devolução of that Pix at the business's PSP.
    const request = aRefundRequest(
      { payment_id: charge.payment_id, amount_centavos: 4200 },
      { amount_centavos: 1000, reason: 'Troca' },
    );
    await bed.client.publish(pixRefundRequested, request);
    const settled = await waitFor(
      async () =>
        (
          (await bed.service.dataSource.query(
            `SELECT envelope->'payload' AS payload FROM outbox
              WHERE name = 'pix.refund.settled.v1' AND envelope->'payload'->>'refund_id' = $1`,
            [request.refund_id],
          )) as Array<{ payload: RefundSettled }>
        )[0]?.payload,
      { what: `refund ${request.refund_id} settled` },
    );
    expect(settled.outcome).toBe('succeeded');
    expect(await businessConsole.getDevolucao(paid.paid_end_to_end_id!, settled.external_id!)).toMatchObject({
      valor: '10.00',
      status: 'DEVOLVIDO',
    });

    // Nothing open any more: the business goes back to the platform's account, and its next charge opens there.
    const left = await bed.request(removePspAccount, { business_id: businessId });
    expect(left.ok).toBe(true);
    const next = await openCharge(bed, anOpenPixCharge({ business_id: businessId }));
    expect(next.custody).toBe('platform');
    expect(await notFoundAt(payer, next.txid)).toBe(false);
    expect(await notFoundAt(businessConsole, next.txid)).toBe(true);
  });

  test("a callback about the business's charge that comes to the platform's path is not trusted", async () => {
    const { bed } = adapter;
    const { businessId } = await businessWithOwnAccount();
    const charge = await openCharge(bed, anOpenPixCharge({ business_id: businessId }));
    const callback = bed.service.callbackUrl.replace('/webhook?', '/webhook/pix?');
    const answer = await fetch(callback, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        pix: [
          {
            endToEndId: `E${'1'.repeat(31)}`,
            txid: charge.txid,
            valor: '25.00',
            horario: new Date().toISOString(),
          },
        ],
      }),
    });
    expect(answer.status).toBe(200);
    const outcomes = (await bed.service.dataSource.query(
      'SELECT outcome FROM callbacks_received WHERE txid = $1',
      [charge.txid],
    )) as Array<{ outcome: string }>;
    expect(outcomes).toEqual([{ outcome: 'unknown_txid' }]);
    const [stored] = (await bed.service.dataSource.query('SELECT status FROM charges WHERE txid = $1', [
      charge.txid,
    ])) as Array<{ status: string }>;
    expect(stored?.status).toBe('active');
  });

  test("a business's account path takes that account's own token: neither the platform's token nor another account's", async () => {
    const { bed } = adapter;
    const { accountId } = await businessWithOwnAccount();
    const { accountId: otherAccountId } = await businessWithOwnAccount();
    const platformToken = new URL(bed.service.callbackUrl).searchParams.get('token')!;
    const base = new URL(bed.service.callbackUrl).origin;
    const post = (token: string) =>
      fetch(`${base}/webhook/accounts/${accountId}/pix?token=${encodeURIComponent(token)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pix: [] }),
      }).then((answer) => answer.status);

    expect(await post(platformToken)).toBe(401);
    expect(await post(accountCallbackToken(platformToken, otherAccountId))).toBe(401);
    expect(await post(accountCallbackToken(platformToken, accountId))).toBe(200);
  });
});
