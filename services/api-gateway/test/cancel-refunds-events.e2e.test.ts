import { createHmac } from 'node:crypto';
import { cobAtPsp, payAtPsp, stackWithMerchantForTheseTests, waitFor } from '@gateway/testkit';

interface WebhookEvent {
  id: string;
  type: string;
  data: Record<string, any>;
}

/** The sandbox payer the local chain funds (SANDBOX_PAYER_SECRET_KEY's public key). */
const SANDBOX_PAYER = 'GAcYSxENGALfvVAXxsHAq33qSZHWv9VFDavkmXNG3Uf3';
const SANDBOX_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/**
 * How long an effect that follows an event may take: on a loaded CI machine a PSP call can pass the adapter's 1.5 s
 * timeout, and the event then comes back after the broker's retry delays (1, 2, 4, 8 s...).
 */
const EVENT_EFFECT_MS = 60_000;
jest.setTimeout(3 * EVENT_EFFECT_MS);

/**
 * Cancel, refunds (PIX through the PSP simulator's devoluções, crypto by SPL transfers on the local chain) and the
 * events API, through the public HTTP API of the whole stack, as a merchant uses them.
 */
describe('cancel, refunds and events end to end', () => {
  const fee = { percent_bps: 100, fixed_centavos: 0 };
  const live = stackWithMerchantForTheseTests({
    name: 'Empório Central',
    feeRules: { pix: fee, crypto: fee },
    webhookEvents: ['payment.cancelled', 'refund.succeeded', 'refund.failed'],
  });
  let otherKey: string;

  const call = (key: string, method: string, path: string, body?: unknown, headers = {}) =>
    live.client.api(key, method, path, body, headers);
  const api = (method: string, path: string, body?: unknown, headers = {}) =>
    call(live.apiKey, method, path, body, headers);

  const rpc = async (method: string, params: unknown[]): Promise<any> => {
    const response = await fetch(live.stack.solanaRpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await response.json()) as { result: unknown }).result;
  };

  /** What the sandbox payer holds of USDC, in base units. */
  const payerUsdc = async (): Promise<bigint> => {
    const result = await rpc('getTokenAccountsByOwner', [
      SANDBOX_PAYER,
      { mint: SANDBOX_USDC_MINT },
      { encoding: 'jsonParsed', commitment: 'confirmed' },
    ]);
    return result.value.reduce(
      (sum: bigint, account: any) => sum + BigInt(account.account.data.parsed.info.tokenAmount.amount),
      0n,
    );
  };

  const webhooksOfType = (type: string, id: (data: Record<string, any>) => string, value: string) =>
    live.receiver.deliveries
      .map((hook) => ({ ...hook, json: JSON.parse(hook.body) as WebhookEvent }))
      .filter((hook) => hook.json.type === type && id(hook.json.data) === value);

  const newPayment = async (body: Record<string, unknown>): Promise<string> =>
    (await live.client.createPayment(live.apiKey, body)).payment_id;

  const paid = async (body: Record<string, unknown>): Promise<string> => {
    const paymentId = await newPayment(body);
    await live.client.payInSandbox(live.apiKey, paymentId);
    await live.client.paymentIn(live.apiKey, paymentId, 'paid');
    return paymentId;
  };

  /**
   * A paid PIX payment that funds the business: the fee is not returned, so a payment's full refund is more than that
   * payment alone left in the balance (INSUFFICIENT_BALANCE), and each test that refunds in full brings its own cover.
   */
  const fundTheBalance = () => paid({ payment_method: 'pix', amount: 2000 });

  const settledRefund = (refundId: string) =>
    waitFor(
      async () => {
        const { body } = await api('GET', `/v1/refunds/${refundId}`);
        return body.status !== 'pending' ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: `refund ${refundId} settled` },
    );

  beforeAll(async () => {
    ({ apiKey: otherKey } = await live.client.createBusiness('Outra Loja'));
  });

  test('a PIX payment is cancelled: the cob is removed at the PSP, a payer can no longer pay it, the webhook says so', async () => {
    const paymentId = await newPayment({ payment_method: 'pix', amount: 3000 });
    expect((await call(otherKey, 'POST', `/v1/payments/${paymentId}/cancel`)).status).toBe(404);
    const cancelled = await api('POST', `/v1/payments/${paymentId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      payment_id: paymentId,
      status: 'cancelled',
      refunded_amount_brl: 0,
    });
    const txid = (await api('GET', `/v1/payments/${paymentId}`)).body.external_id as string;

    // The adapter removes the cob when it handles payment.cancelled. Watched by reading the cob: a payer's attempt
    // made before the removal would pay it, and the test would have raced the adapter.
    await waitFor(
      async () => (await cobAtPsp(live.stack.pspUrl, txid)).status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      { timeoutMs: EVENT_EFFECT_MS, intervalMs: 200, what: 'the cob removed at the PSP' },
    );
    // The PSP then refuses a payer.
    const attempt = await payAtPsp(live.stack.pspUrl, txid);
    expect(attempt.status).toBe(400);
    expect(((await attempt.json()) as { detail: string }).detail).toContain(
      'REMOVIDA_PELO_USUARIO_RECEBEDOR',
    );

    const [hook] = await waitFor(
      () => {
        const hooks = webhooksOfType('payment.cancelled', (data) => data.payment_id, paymentId);
        return hooks.length > 0 && hooks;
      },
      { timeoutMs: EVENT_EFFECT_MS, what: 'the payment.cancelled webhook' },
    );
    expect(hook!.json.data).toMatchObject({ payment_id: paymentId, status: 'cancelled' });
    expect(hook!.headers['x-service-signature']).toBe(
      createHmac('sha256', live.webhookSecret).update(hook!.body).digest('hex'),
    );

    const again = await api('POST', `/v1/payments/${paymentId}/cancel`);
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('INVALID_STATUS');
    expect(again.body.error.message).toContain('cancelled');
    const refund = await api('POST', `/v1/payments/${paymentId}/refunds`, {});
    expect({ status: refund.status, code: refund.body.error.code }).toEqual({
      status: 422,
      code: 'INVALID_STATUS',
    });
  });

  test('a crypto payment is cancelled; a paid one cannot be, and the refusal names paid', async () => {
    const open = await newPayment({
      payment_method: 'crypto',
      amount: 2000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    const cancelled = await api('POST', `/v1/payments/${open}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    expect((await api('POST', `/v1/sandbox/payments/${open}/simulate`, { outcome: 'paid' })).status).toBe(
      422,
    );

    const paidId = await paid({ payment_method: 'pix', amount: 2000 });
    const refused = await api('POST', `/v1/payments/${paidId}/cancel`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toEqual({
      code: 'INVALID_STATUS',
      message: expect.stringContaining('paid'),
    });
  });

  test('PIX refunds: partial then the rest succeed at the PSP, a third is INVALID_AMOUNT, simulate:fail fails', async () => {
    await fundTheBalance();
    const paymentId = await paid({ payment_method: 'pix', amount: 10000 });
    const first = await api(
      'POST',
      `/v1/payments/${paymentId}/refunds`,
      { amount: 3000, reason: 'troca' },
      { 'idempotency-key': `refund-${paymentId}-1` },
    );
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      refund_id: expect.stringMatching(/^ref_/),
      payment_id: paymentId,
      amount_brl: 30,
      status: 'pending',
      reason: 'troca',
    });
    const replay = await api(
      'POST',
      `/v1/payments/${paymentId}/refunds`,
      { amount: 3000, reason: 'troca' },
      { 'idempotency-key': `refund-${paymentId}-1` },
    );
    expect(replay.body.refund_id).toBe(first.body.refund_id);
    const firstSettled = await settledRefund(first.body.refund_id);
    expect(firstSettled).toMatchObject({ status: 'succeeded', external_id: expect.any(String) });
    expect((await api('GET', `/v1/payments/${paymentId}`)).body.refunded_amount_brl).toBe(30);

    const rest = await api('POST', `/v1/payments/${paymentId}/refunds`, {});
    expect(rest.body.amount_brl).toBe(70);
    expect(await settledRefund(rest.body.refund_id)).toMatchObject({ status: 'succeeded' });
    const payment = (await api('GET', `/v1/payments/${paymentId}`)).body;
    expect(payment).toMatchObject({ status: 'paid', refunded_amount_brl: 100 });
    const third = await api('POST', `/v1/payments/${paymentId}/refunds`, { amount: 100 });
    expect({ status: third.status, code: third.body.error.code }).toEqual({
      status: 422,
      code: 'INVALID_AMOUNT',
    });

    const listed = await api('GET', `/v1/payments/${paymentId}/refunds?limit=1`);
    expect(listed.body).toMatchObject({ data: [{ refund_id: rest.body.refund_id }], has_more: true });
    expect((await call(otherKey, 'GET', `/v1/payments/${paymentId}/refunds`)).status).toBe(404);
    expect((await call(otherKey, 'POST', `/v1/payments/${paymentId}/refunds`, { amount: 100 })).status).toBe(
      404,
    );
    expect((await call(otherKey, 'GET', `/v1/refunds/${rest.body.refund_id}`)).status).toBe(404);

    await fundTheBalance();
    const failing = await paid({ payment_method: 'pix', amount: 5000 });
    const doomed = await api('POST', `/v1/payments/${failing}/refunds`, { reason: 'simulate:fail' });
    expect(doomed.status).toBe(201);
    const failed = await settledRefund(doomed.body.refund_id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: expect.any(String) });
    expect((await api('GET', `/v1/payments/${failing}`)).body.refunded_amount_brl).toBe(0);
    // A failed refund frees its share: the whole amount is refundable again.
    expect((await api('POST', `/v1/payments/${failing}/refunds`, { amount: 5000 })).status).toBe(201);

    await waitFor(
      () =>
        webhooksOfType('refund.succeeded', (data) => data.refund_id, rest.body.refund_id).length === 1 &&
        webhooksOfType('refund.failed', (data) => data.refund_id, doomed.body.refund_id).length === 1,
      { timeoutMs: EVENT_EFFECT_MS, what: 'the refund webhooks' },
    );
    const [hook] = webhooksOfType('refund.succeeded', (data) => data.refund_id, rest.body.refund_id);
    expect(hook!.json.data).toEqual((await api('GET', `/v1/refunds/${rest.body.refund_id}`)).body);
  });

  test('parallel refunds over HTTP never exceed the paid amount', async () => {
    await fundTheBalance();
    const paymentId = await paid({ payment_method: 'pix', amount: 10000 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => api('POST', `/v1/payments/${paymentId}/refunds`, { amount: 2000 })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
    expect(
      answers.filter((answer) => answer.status === 422 && answer.body.error.code === 'INVALID_AMOUNT'),
    ).toHaveLength(7);
  });

  test('a crypto refund sends USDC back to the payer on chain, pro rata, confirmed', async () => {
    await fundTheBalance();
    const paymentId = await paid({
      payment_method: 'crypto',
      amount: 10000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    const before = await payerUsdc();
    const refund = await api('POST', `/v1/payments/${paymentId}/refunds`, { amount: 2500 });
    expect(refund.status).toBe(201);
    const settled = await settledRefund(refund.body.refund_id);
    expect(settled).toMatchObject({
      status: 'succeeded',
      external_id: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/),
    });
    const statuses = await rpc('getSignatureStatuses', [[settled.external_id]]);
    expect(statuses.value[0]).toMatchObject({ err: null });
    // R$ 100 at the sandbox's fixed 0.18 USDC/BRL is 18 USDC; a quarter of it comes back.
    expect((await payerUsdc()) - before).toBe(4_500_000n);
    expect((await api('GET', `/v1/payments/${paymentId}`)).body.refunded_amount_brl).toBe(25);

    // The local chain's sandbox rule: the transfer lands failed (frozen account), nothing moves.
    const doomed = await api('POST', `/v1/payments/${paymentId}/refunds`, { reason: 'simulate:fail' });
    expect(doomed.body.amount_brl).toBe(75);
    const failed = await settledRefund(doomed.body.refund_id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('Custom') });
    expect((await payerUsdc()) - before).toBe(4_500_000n);
    expect((await api('GET', `/v1/payments/${paymentId}`)).body.refunded_amount_brl).toBe(25);
  });

  test('an overpaid crypto payment: its excess goes back once, with the full refund or by hand, never both', async () => {
    const overpaid = async () => {
      await fundTheBalance();
      const paymentId = await newPayment({
        payment_method: 'crypto',
        amount: 10000,
        crypto: { currency: 'usdc', network: 'solana' },
      });
      // R$ 125 of USDC for a R$ 100 payment: 22.5 USDC sent, 4.5 of them kept as excess.
      expect(
        (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid', amount: 12500 }))
          .status,
      ).toBe(202);
      await live.client.paymentIn(live.apiKey, paymentId, 'paid');
      const excess = await waitFor(
        async () => (await api('GET', `/v1/payments/${paymentId}/received-funds`)).body.data[0],
        { timeoutMs: EVENT_EFFECT_MS, what: `the excess of ${paymentId}` },
      );
      expect(excess).toMatchObject({ kind: 'excess', amount_token: 4.5, status: 'held', returned_by: null });
      return { paymentId, excess };
    };

    const withRefund = await overpaid();
    const before = await payerUsdc();
    const full = await api('POST', `/v1/payments/${withRefund.paymentId}/refunds`, {});
    expect(full.body).toMatchObject({ amount_brl: 100, returned_funds_id: withRefund.excess.funds_id });
    expect((await settledRefund(full.body.refund_id)).status).toBe('succeeded');
    expect((await payerUsdc()) - before).toBe(22_500_000n);
    const [returned] = (await api('GET', `/v1/payments/${withRefund.paymentId}/received-funds`)).body.data;
    expect(returned).toMatchObject({ status: 'returned', returned_by: full.body.refund_id });
    const again = await api(
      'POST',
      `/v1/payments/${withRefund.paymentId}/received-funds/${withRefund.excess.funds_id}/return`,
    );
    expect(again.status).toBe(422);
    expect(again.body.error).toMatchObject({ code: 'INVALID_STATUS' });

    const byHand = await overpaid();
    const marked = await api(
      'POST',
      `/v1/payments/${byHand.paymentId}/received-funds/${byHand.excess.funds_id}/return`,
    );
    expect(marked.body).toMatchObject({ status: 'returned', returned_by: 'manual' });
    const beforePrice = await payerUsdc();
    const priceOnly = await api('POST', `/v1/payments/${byHand.paymentId}/refunds`, {});
    expect(priceOnly.body).toMatchObject({ amount_brl: 100, returned_funds_id: null });
    expect((await settledRefund(priceOnly.body.refund_id)).status).toBe('succeeded');
    expect((await payerUsdc()) - beforePrice).toBe(18_000_000n);
  });

  test('the events API lists the business’s events newest first, by type, and reads one; another business sees none', async () => {
    const paymentId = await newPayment({ payment_method: 'pix', amount: 1500 });
    await api('POST', `/v1/payments/${paymentId}/cancel`);
    const cancelledEvent = await waitFor(
      async () => {
        const { body } = await api('GET', '/v1/events?type=payment.cancelled&limit=100');
        return (body.data as Array<Record<string, any>>).find((event) => event.data.payment_id === paymentId);
      },
      { timeoutMs: EVENT_EFFECT_MS, what: 'the payment.cancelled event listed' },
    );
    expect(cancelledEvent).toMatchObject({ type: 'payment.cancelled', data: { status: 'cancelled' } });
    const one = await api('GET', `/v1/events/${cancelledEvent.id}`);
    expect(one.body).toEqual(cancelledEvent);
    const [hook] = webhooksOfType('payment.cancelled', (data) => data.payment_id, paymentId);
    if (hook) expect(JSON.parse(hook.body)).toEqual(cancelledEvent);

    const page = await api('GET', '/v1/events?limit=2');
    expect(page.body.data).toHaveLength(2);
    expect(page.body.has_more).toBe(true);
    const next = await api('GET', `/v1/events?limit=2&starting_after=${page.body.data[1].id}`);
    expect(next.body.data[0].created_at <= page.body.data[1].created_at).toBe(true);
    const created = await api('GET', '/v1/events?type=payment.created&limit=100');
    expect(
      (created.body.data as Array<{ type: string }>).every((event) => event.type === 'payment.created'),
    ).toBe(true);
    expect((await call(otherKey, 'GET', '/v1/events')).body).toEqual({ data: [], has_more: false });
    expect((await call(otherKey, 'GET', `/v1/events/${cancelledEvent.id}`)).status).toBe(404);
    expect((await api('GET', '/v1/events?type=payment.refunded')).status).toBe(422);
  });
});
