import { failNextEnvioAtPsp, stackWithMerchantForTheseTests, waitFor, type JsonBody } from '@gateway/testkit';

/** How long an effect that follows an event may take on a loaded machine (broker retries included). */
const EVENT_EFFECT_MS = 60_000;
jest.setTimeout(4 * EVENT_EFFECT_MS);

const cents = (brl: number): number => Math.round(brl * 100);

/**
 * A payout through the whole stack and the real rail, as `npm start` runs it: a PIX payment paid in sandbox, the
 * operator registering the business's payout account, the payout requested over the public API, reserved by the
 * ledger, sent by the PIX adapter through the envio port to the PSP simulator, settled by the PSP's callback (or the
 * adapter's poll) and posted by the ledger; then a send the PSP fails, and the money back.
 */
describe('payouts paid and failed by the PIX rail end to end', () => {
  const live = stackWithMerchantForTheseTests({
    name: 'Loja Vizinha',
    webhookEvents: ['payment.confirmed'],
  });
  let businessId: string;
  let apiKey: string;

  const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    live.client.api(apiKey, method, path, body, headers);
  const balance = async (): Promise<JsonBody> => (await api('GET', '/v1/balance')).body;
  const payoutIn = (payoutId: string, status: string): Promise<JsonBody> =>
    waitFor(
      async () => {
        const { body } = await api('GET', `/v1/payouts/${payoutId}`);
        return body.status === status && body;
      },
      { timeoutMs: EVENT_EFFECT_MS, intervalMs: 200, what: `payout ${payoutId} ${status}` },
    );
  const balanceIs = (expected: { available: number; reserved: number }) =>
    waitFor(
      async () => {
        const now = await balance();
        return (
          cents(now.available_brl) === expected.available &&
          cents(now.reserved_brl) === expected.reserved &&
          now
        );
      },
      {
        timeoutMs: EVENT_EFFECT_MS,
        intervalMs: 200,
        what: `available ${expected.available} and reserved ${expected.reserved} centavos`,
      },
    );
  const eventListed = (type: string, payoutId: string): Promise<JsonBody> =>
    waitFor(
      async () => {
        const { body } = await api('GET', `/v1/events?type=${type}`);
        return (body.data as JsonBody[]).find((event) => event.data.payout_id === payoutId);
      },
      { timeoutMs: EVENT_EFFECT_MS, intervalMs: 200, what: `${type} of ${payoutId} in the events API` },
    );

  beforeAll(async () => {
    // The business paid out, with its own webhook for the payout events (the merchant's sees none of them).
    ({ businessId, apiKey } = await live.client.createBusiness('Mercearia Ipê', {
      pix: { percent_bps: 100, fixed_centavos: 0 },
    }));
    await live.client.registerWebhook(apiKey, live.receiver.url('/payouts'), [
      'payout.paid',
      'payout.failed',
    ]);
    const { payment_id: paymentId } = await live.client.createPayment(apiKey, {
      payment_method: 'pix',
      amount: 20_000,
    });
    await live.client.payInSandbox(apiKey, paymentId);
    await live.client.paymentIn(apiKey, paymentId, 'paid');
    // R$ 200.00 less the 1% fee.
    await balanceIs({ available: 19_800, reserved: 0 });
  });

  test('without a payout account a payout is refused, with nothing reserved', async () => {
    const refused = await api('POST', '/v1/payouts', { amount: 1_000 });
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'NO_PAYOUT_ACCOUNT']);
    await balanceIs({ available: 19_800, reserved: 0 });
  });

  test('a payout is sent by the PSP, paid with its endToEndId, posted once, in the statement and announced', async () => {
    await live.client.admin('PUT', `/admin/v1/businesses/${businessId}/payout-account`, {
      pix_key: 'financeiro@mercearia-ipe.com.br',
      pix_key_type: 'email',
      holder_document: '52998224725',
    });
    const created = await api(
      'POST',
      '/v1/payouts',
      { amount: 5_000 },
      { 'Idempotency-Key': 'payout-rail-paid' },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      payout_id: expect.stringMatching(/^po_/),
      amount_brl: 50,
      status: 'pending',
      destination: { pix_key_masked: expect.any(String) },
      external_id: null,
      failure_reason: null,
    });
    const payoutId = created.body.payout_id as string;

    const paid = await payoutIn(payoutId, 'paid');
    // The PIX endToEndId the PSP gave the send: E + ISPB (8) + yyyyMMddHHmm + 11 characters.
    expect(paid.external_id).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    expect(paid.failure_reason).toBeNull();
    await balanceIs({ available: 19_800 - 5_000, reserved: 0 });

    const transactions = (await api('GET', '/v1/balance_transactions?type=payout')).body.data as JsonBody[];
    expect(transactions).toEqual([
      expect.objectContaining({
        type: 'payout',
        source_id: payoutId,
        amount_brl: -50,
        fee_brl: 0,
        net_brl: -50,
      }),
    ]);

    const month = new Date().toISOString().slice(0, 7);
    const statement = await fetch(`${live.stack.gatewayUrl}/v1/statements/${month}`, {
      headers: { 'x-api-key': apiKey },
    });
    expect(statement.status).toBe(200);
    const rows = (await statement.text()).trim().split('\n');
    const payoutRow = rows.find((row) => row.split(',')[3] === payoutId);
    expect(payoutRow?.split(',').slice(2, 7)).toEqual(['payout', payoutId, '-50.00', '0.00', '-50.00']);

    const listed = await eventListed('payout.paid', payoutId);
    expect(listed.data).toEqual(paid);
    const delivered = await live.receiver.delivered('payout.paid', payoutId, EVENT_EFFECT_MS);
    expect(delivered.data).toEqual(paid);
    // The destination never leaves the books in full.
    expect(JSON.stringify(delivered)).not.toContain('financeiro@mercearia-ipe.com.br');
  });

  test('a payout the PSP fails is failed with its reason, its money back in available, and announced', async () => {
    await live.client.admin('PUT', `/admin/v1/businesses/${businessId}/payout-account`, {
      pix_key: '52998224725',
      pix_key_type: 'cpf',
      holder_document: '52998224725',
    });
    await failNextEnvioAtPsp(live.stack.pspUrl, {
      chave: '52998224725',
      valor: '12.34',
      motivo: 'Conta do favorecido encerrada',
    });
    const before = await balance();
    const created = await api('POST', '/v1/payouts', { amount: 1_234 });
    expect(created.status).toBe(201);
    const payoutId = created.body.payout_id as string;

    const failed = await payoutIn(payoutId, 'failed');
    expect(failed.failure_reason).toEqual(expect.stringContaining('Conta do favorecido encerrada'));
    await balanceIs({ available: cents(before.available_brl), reserved: 0 });
    const transactions = (await api('GET', '/v1/balance_transactions?type=payout')).body.data as JsonBody[];
    expect(transactions.map((transaction) => transaction.source_id)).not.toContain(payoutId);

    const listed = await eventListed('payout.failed', payoutId);
    expect(listed.data).toEqual(failed);
    const delivered = await live.receiver.delivered('payout.failed', payoutId, EVENT_EFFECT_MS);
    expect(delivered.data).toEqual(failed);
    // Only to the business paid out: the other merchant's webhook got none of its events.
    expect(live.receiver.deliveries.filter((delivery) => delivery.path !== '/payouts')).toEqual([]);
  });
});
