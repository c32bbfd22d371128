import {
  cobvAtPsp,
  daysAfter,
  payDueChargeAtPsp,
  pspToday,
  stackWithMerchantForTheseTests,
  waitFor,
} from '@gateway/testkit';

/**
 * PIX charges with a due date (API Pix cobv) through the public API, against the sandbox PSP simulator: the sandbox
 * payer pays what the PSP says is due on the day it pays: today, or the day `POST /v1/sandbox/payments/{id}/simulate`
 * `{"outcome": "paid", "paid_on": "YYYY-MM-DD"}` names (the simulator's clock, which every charge shares, untouched).
 */
describe('PIX payments with a due date, end to end through the public API', () => {
  const live = stackWithMerchantForTheseTests({
    name: 'Escola Aprender',
    feeRules: { pix: { percent_bps: 100, fixed_centavos: 0 } },
    webhookEvents: ['payment.created', 'payment.confirmed'],
  });

  const api = (method: string, path: string, body?: unknown) =>
    live.client.api(live.apiKey, method, path, body);

  /** The payments the first two tests pay: late with a fine, early with a discount. */
  const paidIds = { late: '', early: '' };

  const aCustomer = async (fields: Record<string, unknown> = {}) => {
    const created = await api('POST', '/v1/customers', {
      name: 'Francisco da Silva',
      document_number: '123.456.789-09',
      ...fields,
    });
    expect(created.status).toBe(201);
    return created.body.customer_id as string;
  };

  test('a due-date payment is created with its due date, paid late with fine and interest, and confirmed with what was paid and why', async () => {
    const customerId = await aCustomer();
    const today = await pspToday(live.stack.pspUrl);
    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 45_000,
      customer_id: customerId,
      description: 'Mensalidade',
      pix: {
        due: {
          date: today,
          payable_days_after: 30,
          fine: { percent_bps: 200 },
          interest: { amount: 15 },
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      amount: 450,
      status: 'processing',
      customer_id: customerId,
      due_date: today,
      pix: { copia_e_cola: expect.stringContaining('/cobv/') },
    });
    expect(created.body).not.toHaveProperty('expires_at');
    const paymentId = created.body.payment_id as string;
    paidIds.late = paymentId;
    const read = await api('GET', `/v1/payments/${paymentId}`);
    expect(read.body).toMatchObject({
      due_date: today,
      payable_until: created.body.payable_until,
      expires_at: null,
      amount_paid: null,
      amount_parts: null,
    });
    expect((await cobvAtPsp(live.stack.pspUrl, read.body.external_id)).devedor).toEqual({
      cpf: '12345678909',
      nome: 'Francisco da Silva',
    });

    // Ten days after the due date: the sandbox payer pays what is due that day (`paid_on`), no clock moved.
    const paidOn = daysAfter(today, 10);
    expect(
      (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid', paid_on: paidOn }))
        .status,
    ).toBe(202);
    const paid = await live.client.paymentIn(live.apiKey, paymentId, 'paid');
    const parts = paid.amount_parts;
    expect(parts).toMatchObject({ original: 450, fine: 9, reduction: 0, discount: 0 });
    expect(parts.interest).toBeGreaterThan(0);
    const amountPaid = Math.round((450 + 9 + parts.interest) * 100) / 100;
    expect(paid).toMatchObject({
      amount_brl: 450,
      amount_paid: amountPaid,
      // 1 % of what was paid, not of the original.
      fee_brl: Math.round(amountPaid) / 100,
    });
    expect(paid.net_amount_brl).toBeCloseTo(amountPaid - paid.fee_brl, 2);

    const delivery = await live.receiver.delivered('payment.confirmed', paymentId);
    expect(delivery.data).toMatchObject({
      payment_id: paymentId,
      amount_brl: 450,
      amount_paid: amountPaid,
      amount_parts: parts,
      fee_brl: paid.fee_brl,
    });

    // The books credit what was paid.
    const transaction = await waitFor(async () => {
      const { body } = await api('GET', '/v1/balance_transactions?limit=100');
      return body.data.find((entry: { source_id: string }) => entry.source_id === paymentId);
    });
    expect(transaction).toMatchObject({ amount_brl: amountPaid, fee_brl: paid.fee_brl });
  });

  test('paid early, the discount is off what was paid, and the fee with it', async () => {
    const customerId = await aCustomer({
      document_number: '11.222.333/0001-81',
      name: 'Padaria Pão Quente Ltda',
    });
    const today = await pspToday(live.stack.pspUrl);
    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 45_000,
      customer_id: customerId,
      pix: {
        due: {
          date: daysAfter(today, 20),
          discount: { until: [{ date: daysAfter(today, 5), amount: 2000 }] },
        },
      },
    });
    expect(created.status).toBe(201);
    paidIds.early = created.body.payment_id;
    await live.client.payInSandbox(live.apiKey, created.body.payment_id);
    const paid = await live.client.paymentIn(live.apiKey, created.body.payment_id, 'paid');
    expect(paid).toMatchObject({
      amount_brl: 450,
      amount_paid: 430,
      amount_parts: { original: 450, fine: 0, interest: 0, reduction: 0, discount: 20 },
      fee_brl: 4.3,
      net_amount_brl: 425.7,
    });
  });

  test.each([
    ['no customer', {}, 422, 'MISSING_FIELDS'],
    ['a malformed due date', { date: '2027-02-30' }, 422, 'INVALID_FIELDS'],
    ['a due date in the past', { date: '2020-01-01' }, 422, 'INVALID_FIELDS'],
    ['a percentage beyond 100 %', { fine: { percent_bps: 10_001 } }, 422, 'INVALID_FIELDS'],
    ['a NUL byte in the date', { date: '2027-02-10\u0000' }, 422, 'INVALID_FIELDS'],
    ['a discount date after the due date', { discountAfter: true }, 422, 'INVALID_FIELDS'],
    ['discount dates of two kinds', { discountKinds: true }, 422, 'INVALID_FIELDS'],
    ['a fourth discount date', { discountDates: 4 }, 422, 'INVALID_FIELDS'],
    ['a reduction of 100 %', { reduction: { percent_bps: 10_000 } }, 422, 'INVALID_FIELDS'],
    ['a payable window over a year', { payable_days_after: 366 }, 422, 'INVALID_FIELDS'],
    ['a negative payable window', { payable_days_after: -1 }, 422, 'INVALID_FIELDS'],
    ['a due date more than five years ahead', { yearsAhead: 6 }, 422, 'INVALID_FIELDS'],
    ['a due date in the year 9999', { date: '9999-12-31', payable_days_after: 0 }, 422, 'INVALID_FIELDS'],
    [
      'a reduction and a discount that leave nothing',
      { reduction: { percent_bps: 6000 }, discountPercent: 6000 },
      422,
      'INVALID_FIELDS',
    ],
  ])('refuses %s, before anything is opened', async (name, change, status, code) => {
    const today = await pspToday(live.stack.pspUrl);
    const { discountAfter, discountKinds, discountDates, discountPercent, yearsAhead, ...rest } =
      change as Record<string, any>;
    const discountDay = (n: number) => daysAfter(today, n);
    const due = {
      date: yearsAhead ? daysAfter(today, 366 * yearsAhead) : daysAfter(today, 10),
      ...(discountAfter ? { discount: { until: [{ date: discountDay(11), amount: 100 }] } } : {}),
      ...(discountKinds
        ? {
            discount: {
              until: [
                { date: discountDay(2), amount: 100 },
                { date: discountDay(4), percent_bps: 100 },
              ],
            },
          }
        : {}),
      ...(discountDates
        ? {
            discount: {
              until: Array.from({ length: discountDates }, (_, i) => ({
                date: discountDay(i + 1),
                amount: 100,
              })),
            },
          }
        : {}),
      ...(discountPercent
        ? { discount: { until: [{ date: discountDay(5), percent_bps: discountPercent }] } }
        : {}),
      ...rest,
    };
    const customerId = name === 'no customer' ? undefined : await aCustomer();
    const answer = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 45_000,
      ...(customerId ? { customer_id: customerId } : {}),
      pix: { due },
    });
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status, code });
  });

  test('a customer without a document, or another business\u2019s, cannot be the debtor of a due-date charge', async () => {
    const today = await pspToday(live.stack.pspUrl);
    const body = (customerId: string) => ({
      payment_method: 'pix',
      amount: 45_000,
      customer_id: customerId,
      pix: { due: { date: daysAfter(today, 10) } },
    });
    const anonymous = await api('POST', '/v1/customers', { name: 'Sem Documento' });
    const noDocument = await api('POST', '/v1/payments', body(anonymous.body.customer_id));
    expect({ status: noDocument.status, code: noDocument.body.error.code }).toEqual({
      status: 422,
      code: 'CUSTOMER_DOCUMENT_REQUIRED',
    });
    const other = await live.client.createBusiness('Outra Escola');
    const foreign = await live.client.api(other.apiKey, 'POST', '/v1/customers', {
      name: 'Maria Souza',
      document_number: '529.982.247-25',
    });
    const foreignCustomer = await api('POST', '/v1/payments', body(foreign.body.customer_id));
    expect({ status: foreignCustomer.status, code: foreignCustomer.body.error.code }).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  test('the amount of a due-date payment does not change', async () => {
    const customerId = await aCustomer();
    const today = await pspToday(live.stack.pspUrl);
    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 45_000,
      customer_id: customerId,
      pix: { due: { date: daysAfter(today, 10) } },
    });
    const changed = await api('PATCH', `/v1/payments/${created.body.payment_id}`, { amount: 50_000 });
    expect({ status: changed.status, code: changed.body.error.code }).toEqual({
      status: 422,
      code: 'INVALID_FIELDS',
    });
  });

  test('pix on a crypto payment is refused, not dropped', async () => {
    const today = await pspToday(live.stack.pspUrl);
    const answer = await api('POST', '/v1/payments', {
      payment_method: 'crypto',
      amount: 2500,
      crypto: { currency: 'USDC', network: 'solana' },
      customer_id: await aCustomer(),
      pix: { due: { date: daysAfter(today, 10) } },
    });
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
      status: 422,
      code: 'INVALID_FIELDS',
    });
    expect(answer.body.error.message).toContain('pix');
  });

  test('the same Idempotency-Key with other due-date rules is a conflict, not the first payment', async () => {
    const customerId = await aCustomer();
    const today = await pspToday(live.stack.pspUrl);
    const body = (days: number) => ({
      payment_method: 'pix',
      amount: 45_000,
      customer_id: customerId,
      pix: { due: { date: daysAfter(today, days) } },
    });
    const key = { 'idempotency-key': `due-${customerId}` };
    const first = await live.client.api(live.apiKey, 'POST', '/v1/payments', body(10), key);
    expect(first.status).toBe(201);
    const replay = await live.client.api(live.apiKey, 'POST', '/v1/payments', body(10), key);
    expect(replay.body.payment_id).toBe(first.body.payment_id);
    const other = await live.client.api(live.apiKey, 'POST', '/v1/payments', body(11), key);
    expect({ status: other.status, code: other.body.error?.code }).toEqual({
      status: 409,
      code: 'IDEMPOTENCY_CONFLICT',
    });
  });

  test('a cancelled due-date payment has its cobv removed at the PSP, and no payer can pay it', async () => {
    const today = await pspToday(live.stack.pspUrl);
    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 45_000,
      customer_id: await aCustomer(),
      pix: { due: { date: daysAfter(today, 10) } },
    });
    expect(created.status).toBe(201);
    const paymentId = created.body.payment_id as string;
    const txid = (await api('GET', `/v1/payments/${paymentId}`)).body.external_id as string;
    expect((await api('POST', `/v1/payments/${paymentId}/cancel`)).body.status).toBe('cancelled');
    await waitFor(
      async () => (await cobvAtPsp(live.stack.pspUrl, txid)).status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      {
        timeoutMs: 30_000,
        intervalMs: 200,
        what: 'the cobv removed at the PSP',
      },
    );
    expect((await payDueChargeAtPsp(live.stack.pspUrl, txid)).status).toBe(400);
  });

  test('past its window a due-date payment expires (payment.expired), and a Pix into it after is late funds', async () => {
    const today = await pspToday(live.stack.pspUrl);
    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 45_000,
      customer_id: await aCustomer(),
      pix: { due: { date: daysAfter(today, 3), payable_days_after: 0 } },
    });
    expect(created.status).toBe(201);
    const paymentId = created.body.payment_id as string;
    const txid = (await api('GET', `/v1/payments/${paymentId}`)).body.external_id as string;
    // The sandbox moves the charge past its window, as for an immediate charge.
    expect(
      (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'expired' })).status,
    ).toBe(202);
    await live.client.paymentIn(live.apiKey, paymentId, 'expired');
    const expired = await waitFor(async () => {
      const { body } = await api('GET', '/v1/events?type=payment.expired&limit=100');
      return (body.data as Array<Record<string, any>>).find((event) => event.data.payment_id === paymentId);
    });
    expect(expired.data).toMatchObject({ status: 'expired', amount_paid: null, amount_parts: null });

    // Still within its window at the PSP (the sandbox ended it early): a payer's bank pays it, and the money is kept
    // apart as late funds, the payment still expired.
    expect((await payDueChargeAtPsp(live.stack.pspUrl, txid)).status).toBe(200);
    const late = await waitFor(async () => {
      const { body } = await api('GET', `/v1/payments/${paymentId}/received-funds`);
      return body.data?.[0];
    });
    expect(late).toMatchObject({ kind: 'late', amount_brl: 450, status: 'held' });
    expect((await api('GET', `/v1/payments/${paymentId}`)).body.status).toBe('expired');
  });

  test('what was paid and its parts are in the list and the events API', async () => {
    const paid = (await api('GET', `/v1/payments/${paidIds.early}`)).body;
    const listed = await waitFor(async () => {
      const { body } = await api('GET', '/v1/payments?limit=100');
      return (body.data as Array<Record<string, any>>).find(
        (payment) => payment.payment_id === paidIds.early && payment.status === 'paid',
      );
    });
    expect(listed).toMatchObject({
      amount_brl: 450,
      amount_paid: 430,
      amount_parts: { original: 450, fine: 0, interest: 0, reduction: 0, discount: 20 },
      due_date: paid.due_date,
      payable_until: paid.payable_until,
    });
    const confirmed = await waitFor(async () => {
      const { body } = await api('GET', '/v1/events?type=payment.confirmed&limit=100');
      return (body.data as Array<Record<string, any>>).find(
        (event) => event.data.payment_id === paidIds.late,
      );
    });
    const late = (await api('GET', `/v1/payments/${paidIds.late}`)).body;
    expect(confirmed.data).toMatchObject({ amount_paid: late.amount_paid, amount_parts: late.amount_parts });
    expect(late.amount_paid).toBeGreaterThan(450);
  });

  test('refunds are bounded by what was paid: after a discount not the original, after a fine all of what was paid', async () => {
    // Money in the balance for both refunds (each is taken from it).
    const funding = await api('POST', '/v1/payments', { payment_method: 'pix', amount: 200_000 });
    await live.client.payInSandbox(live.apiKey, funding.body.payment_id);
    await live.client.paymentIn(live.apiKey, funding.body.payment_id, 'paid');

    const original = await api('POST', `/v1/payments/${paidIds.early}/refunds`, { amount: 45_000 });
    expect({ status: original.status, code: original.body.error?.code }).toEqual({
      status: 422,
      code: 'INVALID_AMOUNT',
    });
    const whole = await api('POST', `/v1/payments/${paidIds.early}/refunds`, {});
    expect(whole.status).toBe(201);
    expect(whole.body.amount_brl).toBe(430);

    const late = (await api('GET', `/v1/payments/${paidIds.late}`)).body;
    const all = await api('POST', `/v1/payments/${paidIds.late}/refunds`, {
      amount: Math.round(late.amount_paid * 100),
    });
    expect(all.status).toBe(201);
    expect(all.body.amount_brl).toBe(late.amount_paid);
    const more = await api('POST', `/v1/payments/${paidIds.late}/refunds`, { amount: 1 });
    expect({ status: more.status, code: more.body.error?.code }).toEqual({
      status: 422,
      code: 'INVALID_AMOUNT',
    });
  });
});
