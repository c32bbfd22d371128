import { randomUUID } from 'node:crypto';
import { createPspSimulator } from '@gateway/psp-simulator';
import { accountCallbackToken } from '@gateway/contracts';
import {
  createTestDatabase,
  startStackWithWebhookReceiver,
  testLogger,
  waitFor,
  type StackWithWebhookReceiver,
} from '@gateway/testkit';
import { balanceThroughApi, businessWithMoney, type CentavosBalance } from './support/stack-books';

/**
 * Disputes (MED) through the whole stack: the sandbox has the PSP simulator raise a MED on a paid PIX payment through
 * its real callback; the PIX adapter reports it, the payment service opens the dispute, the ledger blocks its amount,
 * the merchant reads it and gets its webhooks; its end (lost: debited, won: released) follows the same way. Its
 * defence is refused at the stack's PSP (API Pix alone takes none), for a closed dispute and another business's, and
 * reaches Efí's infraction for a business whose own PSP account is at Efí.
 */
describe('disputes (MED) end to end', () => {
  let the: StackWithWebhookReceiver;

  beforeAll(async () => {
    the = await startStackWithWebhookReceiver();
  }, 150_000);

  afterAll(() => the?.stopAll());

  test('disputed blocks the amount; lost debits it, won releases it; dispute.created / dispute.closed delivered', async () => {
    const { client, receiver } = the;
    const { apiKey, paymentId } = await businessWithMoney(client, 'Loja Disputada', 10000);
    await client.registerWebhook(apiKey, receiver.url('/disputes'), ['dispute.created', 'dispute.closed']);
    const simulate = async (body: Record<string, unknown>) => {
      const answer = await client.api(apiKey, 'POST', `/v1/sandbox/payments/${paymentId}/simulate`, body);
      expect(answer.status).toBe(202);
    };
    const balanceBecomes = (expected: Partial<CentavosBalance>, what: string) =>
      waitFor(
        async () => {
          const balance = await balanceThroughApi(client, apiKey);
          return Object.entries(expected).every(
            ([key, value]) => balance[key as keyof CentavosBalance] === value,
          )
            ? balance
            : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200, what },
      );
    const disputeBecomes = (status: string) =>
      waitFor(
        async () => {
          const { body } = await client.api(apiKey, 'GET', '/v1/disputes');
          return (body.data as Array<{ status: string; dispute_id: string }>).find(
            (dispute) => dispute.status === status,
          );
        },
        { timeoutMs: 30_000, intervalMs: 200, what: `a dispute ${status}` },
      );

    // A MED of R$ 40,00: blocked at once.
    await simulate({ outcome: 'disputed', amount: 4000 });
    const opened = await disputeBecomes('open');
    expect(opened).toEqual({
      dispute_id: expect.stringMatching(/^dsp_/),
      payment_id: paymentId,
      amount_brl: 40,
      status: 'open',
      reason: 'MED_FRAUDE',
      defence_submitted_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await balanceBecomes({ available: 6000, blocked: 4000 }, 'R$ 40,00 blocked')).toMatchObject({
      available: 6000,
      blocked: 4000,
    });
    const read = await client.api(apiKey, 'GET', `/v1/disputes/${opened.dispute_id}`);
    expect(read).toMatchObject({ status: 200, body: opened });
    expect((await receiver.delivered('dispute.created', opened.dispute_id)).data).toEqual(opened);

    // A defence: the stack's PSP (API Pix as the Central Bank specifies it) takes none through its API.
    const defence = (
      text: unknown,
      key = apiKey,
      id = opened.dispute_id,
      headers: Record<string, string> = {},
    ) => client.api(key, 'POST', `/v1/disputes/${id}/defence`, { text }, headers);
    const refused = await defence('Pedido entregue ao titular.', apiKey, opened.dispute_id, {
      'Idempotency-Key': `defence-${opened.dispute_id}`,
    });
    expect(refused).toMatchObject({
      status: 422,
      body: { error: { code: 'DEFENCE_NOT_SUPPORTED', message: expect.any(String) } },
    });
    const replayed = await defence('Pedido entregue ao titular.', apiKey, opened.dispute_id, {
      'Idempotency-Key': `defence-${opened.dispute_id}`,
    });
    expect(replayed).toEqual(refused);
    // Another business's dispute is none of its business; an id that cannot be one is not found either.
    const other = await client.createBusiness('Loja Vizinha');
    expect(await defence('Não é minha.', other.apiKey)).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND' } },
    });
    expect(await defence('Id inválido.', apiKey, 'dsp_$$$')).toMatchObject({ status: 404 });
    // Hostile bodies: the contract's error shape, never a 5xx, and nothing reaches the PSP.
    const hostile = await Promise.all(
      [undefined, '', '   ', 42, ['a'], { text: 'x' }, 'a\u0000b', 'x'.repeat(1001)].map((text) =>
        defence(text),
      ),
    );
    for (const answer of hostile)
      expect(answer).toMatchObject({
        status: 422,
        body: {
          error: { code: expect.stringMatching(/^(MISSING|INVALID)_FIELDS$/), message: expect.any(String) },
        },
      });
    const raw = (body: string) =>
      fetch(`${the.stack.gatewayUrl}/v1/disputes/${opened.dispute_id}/defence`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body,
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    expect(await raw('{"text":')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_JSON' } } });
    expect(await raw(JSON.stringify({ text: 'x'.repeat(70_000) }))).toMatchObject({
      status: 413,
      body: { error: { code: 'PAYLOAD_TOO_LARGE' } },
    });

    // Lost: the money went back to the payer, out of the blocked balance.
    await simulate({ outcome: 'dispute_lost' });
    const lost = await disputeBecomes('lost');
    expect(lost.dispute_id).toBe(opened.dispute_id);
    // A closed dispute takes no defence.
    expect(await defence('Tarde demais.')).toMatchObject({
      status: 422,
      body: { error: { code: 'INVALID_STATUS' } },
    });
    await balanceBecomes({ available: 6000, blocked: 0 }, 'the lost R$ 40,00 debited');
    expect((await receiver.delivered('dispute.closed', opened.dispute_id)).data).toMatchObject({
      status: 'lost',
    });

    // Another MED, of R$ 20,00, won: released.
    await simulate({ outcome: 'disputed', amount: 2000 });
    await balanceBecomes({ available: 4000, blocked: 2000 }, 'R$ 20,00 blocked');
    const second = await disputeBecomes('open');
    await simulate({ outcome: 'dispute_won' });
    const won = await disputeBecomes('won');
    expect(won.dispute_id).toBe(second.dispute_id);
    await balanceBecomes({ available: 6000, blocked: 0 }, 'the won R$ 20,00 released');
    expect((await receiver.delivered('dispute.closed', second.dispute_id)).data).toMatchObject({
      status: 'won',
    });
    // The events API lists them too.
    const events = await client.api(apiKey, 'GET', '/v1/events?type=dispute.closed');
    expect(events.status).toBe(200);
    expect(events.body.data).toHaveLength(2);
    // The balance transactions show the dispute and its release.
    const transactions = await client.api(apiKey, 'GET', '/v1/balance_transactions?limit=10');
    expect((transactions.body.data as Array<{ type: string }>).map((item) => item.type)).toEqual(
      expect.arrayContaining(['dispute', 'dispute_won']),
    );
  }, 150_000);

  test("a business whose own PSP account is at Efí defends its dispute through the API; Efí's infraction has it", async () => {
    const { client, stack } = the;
    // Efí, as the simulator's Efí mode, on books of its own: the business's own PSP account.
    const books = await createTestDatabase();
    const pixKey = randomUUID();
    const credentials = { clientId: 'loja-na-efi', clientSecret: 'segredo-da-loja-na-efi' };
    const efi = await createPspSimulator({
      databaseUrl: books.url,
      ...credentials,
      pixKey,
      profile: 'efi',
      logger: testLogger('efi'),
    }).start(0);
    try {
      const business = await client.createBusiness('Loja na Efí', {
        pix: { percent_bps: 0, fixed_centavos: 0 },
      });
      const account = await client.admin('PUT', `/admin/v1/businesses/${business.businessId}/psp-account`, {
        profile: 'efi',
        base_url: `${efi.url}/v2`,
        oauth_token_url: `${efi.url}/oauth/token`,
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        pix_key: pixKey,
      });
      const efiCall = async (path: string) => {
        const token = await fetch(`${efi.url}/oauth/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ grant_type: 'client_credentials' }),
        }).then(async (response) => ((await response.json()) as { access_token: string }).access_token);
        const response = await fetch(`${efi.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        return (await response.json()) as Record<string, unknown>;
      };
      const period = `inicio=${new Date(Date.now() - 3_600_000).toISOString()}&fim=${new Date(Date.now() + 3_600_000).toISOString()}`;
      // Efí calls back over mutual TLS only, which the local stack's listener does not serve: the test calls the
      // adapter's listener for it, with what Efí lists (the callback is only a trigger: the adapter re-reads at Efí).
      const callBack = async () => {
        const { pix } = await efiCall(`/v2/pix?${period}`);
        const answer = await fetch(
          `${stack.callbackUrl}/webhook/accounts/${account.account_id as string}/pix?token=${accountCallbackToken(SANDBOX_CALLBACK_TOKEN, account.account_id as string)}`,
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pix }) },
        );
        expect(answer.status).toBe(200);
      };

      const payment = await client.createPayment(business.apiKey, { payment_method: 'pix', amount: 5000 });
      const paymentId = payment.payment_id as string;
      await client.payInSandbox(business.apiKey, paymentId);
      await callBack();
      await client.paymentIn(business.apiKey, paymentId, 'paid', 30_000);
      const disputed = await client.api(
        business.apiKey,
        'POST',
        `/v1/sandbox/payments/${paymentId}/simulate`,
        {
          outcome: 'disputed',
        },
      );
      expect(disputed.status).toBe(202);
      await callBack();
      const opened = await waitFor(
        async () => {
          const { body } = await client.api(business.apiKey, 'GET', '/v1/disputes');
          return (body.data as Array<{ dispute_id: string; status: string }>)[0];
        },
        { timeoutMs: 30_000, intervalMs: 200, what: 'the dispute at Efí' },
      );

      const defended = await client.api(
        business.apiKey,
        'POST',
        `/v1/disputes/${opened.dispute_id}/defence`,
        {
          text: 'Pedido 1234 entregue ao titular; comprovante assinado.',
        },
      );
      expect(defended).toMatchObject({
        status: 200,
        body: { dispute_id: opened.dispute_id, status: 'open', defence_submitted_at: expect.any(String) },
      });
      const read = await client.api(business.apiKey, 'GET', `/v1/disputes/${opened.dispute_id}`);
      expect(read.body).toEqual(defended.body);
      const again = await client.api(business.apiKey, 'POST', `/v1/disputes/${opened.dispute_id}/defence`, {
        text: 'Outra vez.',
      });
      expect(again).toMatchObject({ status: 422, body: { error: { code: 'INVALID_STATUS' } } });
      const { infracoes } = await efiCall(`/v2/gn/infracoes?${period}`);
      expect(infracoes).toEqual([
        expect.objectContaining({
          status: 'EM_DEFESA',
          analise: 'negado',
          defesa: 'Pedido 1234 entregue ao titular; comprovante assinado.',
        }),
      ]);
    } finally {
      await efi.close();
      await books.drop();
    }
  }, 150_000);
});

/** The PIX adapter's callback token in the sandbox, as the launched stack runs it (its default). */
const SANDBOX_CALLBACK_TOKEN = 'sandbox-callback-token';
