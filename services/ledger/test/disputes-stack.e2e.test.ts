import { startStackWithWebhookReceiver, waitFor, type StackWithWebhookReceiver } from '@gateway/testkit';
import { balanceThroughApi, businessWithMoney, type CentavosBalance } from './support/stack-books';

/**
 * Disputes (MED) through the whole stack: the sandbox has the PSP simulator raise a MED on a paid PIX payment through
 * its real callback; the PIX adapter reports it, the payment service opens the dispute, the ledger blocks its amount,
 * the merchant reads it and gets its webhooks; its end (lost: debited, won: released) follows the same way. Its
 * defence is refused here (the stack's PSP, API Pix alone, takes none; the Efí mode's is tested with the whole PIX
 * adapter, services/pix-adapter/test/psp-profiles-adapter.int.test.ts), as are a closed one and another business's.
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
});
