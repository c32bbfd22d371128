import { daysAfter, pspToday, stackWithMerchantForTheseTests, waitFor } from '@gateway/testkit';

/**
 * Subscriptions by Pix Automático through the public API, against the whole stack and the sandbox PSP simulator: the
 * recurrence opened at the PSP (`/rec`, `/solicrec`, `/locrec`), the payer's bank authorizing it, each cycle a `cobr`
 * debited on its due date as the subscription's own clock (and the recurrence's at the PSP) moves forward, the books
 * crediting each paid cycle, webhooks for every step.
 */
describe('subscriptions by Pix Automático, end to end through the public API', () => {
  const live = stackWithMerchantForTheseTests({
    name: 'Academia Movimento',
    feeRules: { pix: { percent_bps: 100, fixed_centavos: 0 } },
    webhookEvents: [
      'payment.created',
      'payment.confirmed',
      'payment.failed',
      'payment.cancelled',
      'subscription.created',
      'subscription.activated',
      'subscription.cancelled',
      'subscription.expired',
      'subscription.cycle_retry_scheduled',
    ],
  });

  const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    live.client.api(live.apiKey, method, path, body, headers);

  const aCustomer = async (): Promise<string> => {
    const created = await api('POST', '/v1/customers', {
      name: 'Joana Pereira',
      document_number: '529.982.247-25',
    });
    expect(created.status).toBe(201);
    return created.body.customer_id as string;
  };

  const subscribe = async (body: Record<string, unknown>) => {
    const created = await api('POST', '/v1/subscriptions', { customer_id: await aCustomer(), ...body });
    expect(created.status).toBe(201);
    return created.body;
  };

  const subscriptionIn = (id: string, status: string) =>
    waitFor(
      async () => {
        const read = await api('GET', `/v1/subscriptions/${id}`);
        return read.body.status === status ? read.body : undefined;
      },
      { what: `subscription ${id} ${status}` },
    );

  /** Moves a sandbox subscription's clock to `to` (the answer comes at once) and waits until it is there. */
  const advance = async (id: string, to: string) => {
    const asked = await api('POST', `/v1/sandbox/subscriptions/${id}/advance`, { to });
    expect(asked.status).toBe(202);
    return waitFor(
      async () => {
        const read = await api('GET', `/v1/subscriptions/${id}`);
        return read.body.current_date === to ? read.body : undefined;
      },
      { timeoutMs: 60_000, what: `the clock of ${id} at ${to}` },
    );
  };

  /** The subscription's cycles (its payments), by cycle number. */
  const cyclesOf = async (id: string) => {
    const listed = await api('GET', `/v1/payments?subscription_id=${id}&limit=100`);
    expect(listed.status).toBe(200);
    return (listed.body.data as Array<Record<string, unknown>>).sort(
      (a, b) => (a.cycle as number) - (b.cycle as number),
    );
  };

  test('a monthly subscription authorized in the payer bank runs twelve paid cycles, each credited once in the books', async () => {
    const today = await pspToday(live.stack.pspUrl);
    const start = daysAfter(today, 10);
    const subscription = await subscribe({
      amount: 9_990,
      interval: 'monthly',
      start_date: start,
      description: 'Plano mensal',
      retry_policy: 'none',
      authorization: {
        journey: 'push',
        payer_account: { ispb: '60701190', branch: '0001', account: '123456' },
      },
    });
    const id = subscription.subscription_id as string;
    expect(subscription).toMatchObject({
      status: 'pending_authorization',
      amount_brl: 99.9,
      interval: 'monthly',
      start_date: start,
      next_cycle: 1,
      next_due_date: start,
    });
    await live.receiver.delivered('subscription.created', id);

    // The payer's bank shows the request; the payer authorizes it.
    expect(
      (await api('POST', `/v1/sandbox/subscriptions/${id}/simulate`, { outcome: 'authorize' })).status,
    ).toBe(202);
    await subscriptionIn(id, 'active');

    // A year: twelve due dates, each cycle opened on its send day and debited on its due date.
    const last = (() => {
      const [y, m, d] = start.split('-').map(Number) as [number, number, number];
      const date = new Date(Date.UTC(y, m - 1 + 11, d));
      return date.toISOString().slice(0, 10);
    })();
    // A week past the last due date: a debit due on a Saturday, a Sunday or a bank holiday is made on the next business
    // day (ajusteDiaUtil), up to four days later around Carnival; cycle 13 opens only ten days before its due date.
    const past = daysAfter(last, 7);
    const started = Date.now();
    await advance(id, past);
    console.log(`a year of monthly cycles advanced in ${Date.now() - started} ms`);

    const cycles = await waitFor(
      async () => {
        const listed = await cyclesOf(id);
        return listed.length === 12 && listed.every((cycle) => cycle.status === 'paid') ? listed : undefined;
      },
      { timeoutMs: 90_000, what: 'twelve paid cycles' },
    );
    expect(cycles.map((cycle) => cycle.cycle)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(new Set(cycles.map((cycle) => cycle.payment_id)).size).toBe(12);
    for (const cycle of cycles)
      expect(cycle).toMatchObject({ subscription_id: id, amount_brl: 99.9, method: 'pix' });

    // Each paid cycle credited once: twelve balance transactions, one per cycle.
    const credited = await waitFor(
      async () => {
        const { body } = await api('GET', '/v1/balance_transactions?limit=100');
        const mine = (body.data as Array<{ source_id: string }>).filter((entry) =>
          cycles.some((cycle) => cycle.payment_id === entry.source_id),
        );
        return mine.length === 12 ? mine : undefined;
      },
      { what: 'twelve credits' },
    );
    expect(new Set(credited.map((entry) => entry.source_id)).size).toBe(12);

    // Webhooks: created, activated, and one payment.confirmed per cycle.
    await live.receiver.delivered('subscription.activated', id);
    for (const cycle of cycles)
      await live.receiver.delivered('payment.confirmed', cycle.payment_id as string);

    // Advancing again to the same day opens nothing new.
    await advance(id, past);
    expect((await cyclesOf(id)).length).toBe(12);

    // The merchant cancels: cancelled by merchant, a webhook, and a second cancel refused.
    const cancelled = await api('POST', `/v1/subscriptions/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled_by: 'merchant' });
    await live.receiver.delivered('subscription.cancelled', id);
    expect((await api('POST', `/v1/subscriptions/${id}/cancel`)).status).toBe(422);
  });

  test('a failed debit with three retries in seven days is retried, announced, and paid; with no retries it fails the cycle', async () => {
    const today = await pspToday(live.stack.pspUrl);
    const retried = await subscribe({
      amount: 5_000,
      interval: 'weekly',
      start_date: daysAfter(today, 5),
      retry_policy: 'three_in_seven_days',
      authorization: { journey: 'push', payer_account: { ispb: '60701190', branch: null, account: '9988' } },
    });
    const id = retried.subscription_id as string;
    await api('POST', `/v1/sandbox/subscriptions/${id}/simulate`, { outcome: 'authorize' });
    await subscriptionIn(id, 'active');
    expect(
      (await api('POST', `/v1/sandbox/subscriptions/${id}/simulate`, { outcome: 'fail_next_cycle' })).status,
    ).toBe(202);
    // Past the due date and the next day's retry.
    await advance(id, daysAfter(today, 7));
    const retry = await live.receiver.delivered('subscription.cycle_retry_scheduled', id);
    expect(retry.data.retry).toMatchObject({ cycle: 1, attempt: 1, reason_code: 'AM02' });
    const [first] = await waitFor(async () => {
      const cycles = await cyclesOf(id);
      return cycles[0]?.status === 'paid' ? cycles : undefined;
    });
    expect(first).toMatchObject({ cycle: 1, status: 'paid' });

    const once = await subscribe({
      amount: 5_000,
      interval: 'weekly',
      start_date: daysAfter(today, 5),
      retry_policy: 'none',
      authorization: { journey: 'push', payer_account: { ispb: '60701190', branch: null, account: '9989' } },
    });
    const onceId = once.subscription_id as string;
    await api('POST', `/v1/sandbox/subscriptions/${onceId}/simulate`, { outcome: 'authorize' });
    await subscriptionIn(onceId, 'active');
    await api('POST', `/v1/sandbox/subscriptions/${onceId}/simulate`, { outcome: 'fail_next_cycle' });
    await advance(onceId, daysAfter(today, 6));
    const [failed] = await waitFor(async () => {
      const cycles = await cyclesOf(onceId);
      return cycles[0]?.status === 'failed' ? cycles : undefined;
    });
    expect(failed).toMatchObject({ cycle: 1, failure_code: 'AUTOMATIC_DEBIT_FAILED' });
    // The subscription goes on: cycle 2 (due a week after cycle 1) was opened on its send day.
    expect((await api('GET', `/v1/subscriptions/${onceId}`)).body).toMatchObject({
      status: 'active',
      next_cycle: 3,
    });
    expect((await cyclesOf(onceId)).map((cycle) => [cycle.cycle, cycle.status])).toEqual([
      [1, 'failed'],
      [2, 'processing'],
    ]);
  });

  test("a varying subscription's cycle is debited for the amount the merchant set for it; a fixed one refuses one", async () => {
    const today = await pspToday(live.stack.pspUrl);
    const start = daysAfter(today, 10);
    const varying = await subscribe({
      minimum_amount: 5_000,
      interval: 'weekly',
      start_date: start,
      authorization: {
        journey: 'push',
        payer_account: { ispb: '60701190', branch: '0001', account: '7766' },
      },
    });
    const id = varying.subscription_id as string;
    expect(varying).toMatchObject({ amount_brl: null, minimum_amount_brl: 50, next_cycle_amount_brl: null });
    const set = await api('PATCH', `/v1/subscriptions/${id}`, { next_cycle_amount: 18_740 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ next_cycle: 1, next_cycle_amount_brl: 187.4 });
    const under = await api('PATCH', `/v1/subscriptions/${id}`, { next_cycle_amount: 4_999 });
    expect([under.status, under.body.error?.code]).toEqual([422, 'INVALID_FIELDS']);
    const notAnAmount = await api('PATCH', `/v1/subscriptions/${id}`, { next_cycle_amount: 12.5 });
    expect([notAnAmount.status, notAnAmount.body.error?.code]).toEqual([422, 'INVALID_AMOUNT']);
    await api('POST', `/v1/sandbox/subscriptions/${id}/simulate`, { outcome: 'authorize' });
    await subscriptionIn(id, 'active');
    // Past cycle 2's due date (and a weekend's or a holiday's move of its debit): cycle 1 debited for what was set,
    // cycle 2 for the minimum; cycle 3, opened on its send day, asks the minimum too.
    await advance(id, daysAfter(start, 11));
    const cycles = await waitFor(async () => {
      const listed = (await cyclesOf(id)).slice(0, 2);
      return listed.length === 2 && listed.every((cycle) => cycle.status === 'paid') ? listed : undefined;
    });
    expect(cycles.map((cycle) => [cycle.cycle, cycle.amount_brl])).toEqual([
      [1, 187.4],
      [2, 50],
    ]);
    expect((await cyclesOf(id))[2]).toMatchObject({ cycle: 3, amount_brl: 50 });
    const fixed = await subscribe({
      amount: 9_990,
      interval: 'monthly',
      start_date: start,
      authorization: { journey: 'qr' },
    });
    const refused = await api('PATCH', `/v1/subscriptions/${fixed.subscription_id as string}`, {
      next_cycle_amount: 12_000,
    });
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'INVALID_FIELDS']);
  });

  test('journey 3: one QR code pays cycle 1 and authorizes the rest', async () => {
    const today = await pspToday(live.stack.pspUrl);
    const subscription = await subscribe({
      amount: 12_000,
      interval: 'monthly',
      start_date: today,
      authorization: { journey: 'qr_with_first_payment' },
    });
    const id = subscription.subscription_id as string;
    const firstPaymentId = subscription.first_payment_id as string;
    expect(subscription.authorization).toMatchObject({
      journey: 'qr_with_first_payment',
      copia_e_cola: expect.any(String),
      qr_code: expect.any(String),
    });
    expect(
      (await api('POST', `/v1/sandbox/subscriptions/${id}/simulate`, { outcome: 'authorize' })).status,
    ).toBe(202);
    await subscriptionIn(id, 'active');
    const paid = await live.client.paymentIn(live.apiKey, firstPaymentId, 'paid');
    expect(paid).toMatchObject({ subscription_id: id, cycle: 1, amount_brl: 120 });
  });

  test('the payer rejects one and cancels another in their bank; the merchant is told who and why', async () => {
    const today = await pspToday(live.stack.pspUrl);
    const body = {
      amount: 3_000,
      interval: 'monthly',
      start_date: daysAfter(today, 10),
      authorization: { journey: 'push', payer_account: { ispb: '60701190', branch: '0001', account: '55' } },
    };
    const rejected = (await subscribe(body)).subscription_id as string;
    await api('POST', `/v1/sandbox/subscriptions/${rejected}/simulate`, { outcome: 'reject' });
    expect(await subscriptionIn(rejected, 'cancelled')).toMatchObject({
      cancelled_by: 'payer',
      cancellation_reason: 'authorization_rejected',
    });

    const cancelled = (await subscribe(body)).subscription_id as string;
    await api('POST', `/v1/sandbox/subscriptions/${cancelled}/simulate`, { outcome: 'authorize' });
    await subscriptionIn(cancelled, 'active');
    await api('POST', `/v1/sandbox/subscriptions/${cancelled}/simulate`, { outcome: 'payer_cancel' });
    expect(await subscriptionIn(cancelled, 'cancelled')).toMatchObject({ cancelled_by: 'payer' });
    const event = await live.receiver.delivered('subscription.cancelled', cancelled);
    expect(event.data).toMatchObject({ subscription_id: cancelled, cancelled_by: 'payer' });
  });

  test("another business's subscription is not found; a bad body gets the contract's error shape", async () => {
    const other = await live.client.createBusiness('Outra Loja');
    const today = await pspToday(live.stack.pspUrl);
    const id = (
      await subscribe({
        amount: 1_000,
        interval: 'weekly',
        start_date: daysAfter(today, 5),
        authorization: { journey: 'qr' },
      })
    ).subscription_id as string;
    for (const [method, path] of [
      ['GET', `/v1/subscriptions/${id}`],
      ['POST', `/v1/subscriptions/${id}/cancel`],
      ['POST', `/v1/sandbox/subscriptions/${id}/simulate`],
    ] as const) {
      const answer = await live.client.api(
        other.apiKey,
        method,
        path,
        method === 'POST' ? { outcome: 'authorize' } : undefined,
      );
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
    const bad = await api('POST', '/v1/subscriptions', {
      customer_id: await aCustomer(),
      amount: 1_000,
      interval: 'daily\u0000',
      start_date: today,
      authorization: { journey: 'qr' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('INVALID_FIELDS');
  });
});
