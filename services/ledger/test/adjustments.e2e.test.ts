import { randomBytes } from 'node:crypto';
import { chargeTariffAtPsp, waitFor, type JsonBody } from '@gateway/testkit';
import { useLedgerStack } from './support/stack-books';

/** How long an effect that follows an event may take on a loaded machine (broker retries included). */
const EVENT_EFFECT_MS = 60_000;
jest.setTimeout(4 * EVENT_EFFECT_MS);

interface Answer {
  status: number;
  body: JsonBody;
}

const noFee = { pix: { percent_bps: 0, fixed_centavos: 0 }, crypto: { percent_bps: 0, fixed_centavos: 0 } };
const newKey = () => `adj-${randomBytes(8).toString('hex')}`;

/**
 * Operator adjustments through the whole stack: the operator API posts them, the merchant API shows a business's, and
 * reconciliation stops reporting a PSP tariff once the operator has booked it.
 */
describe('operator adjustments end to end', () => {
  // A second of grace: what the PSP holds more than a second later and the books do not is a difference.
  const ledger = useLedgerStack({
    RECONCILIATION_GRACE_SECONDS: '1',
    RECONCILIATION_INTERVAL_SECONDS: '0',
    // The hostile inputs are many requests in a row from one address.
    ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
  });

  /** The operator's request, whatever its answer (the stack client's `admin` fails a test on anything but a 2xx). */
  async function operator(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const response = await fetch(`${ledger.stack.gatewayUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ledger.stack.adminToken}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as JsonBody };
  }
  const adjust = (body: unknown, headers?: Record<string, string>) =>
    operator('POST', '/admin/v1/adjustments', body, headers);

  const availableOf = async (apiKey: string): Promise<number> =>
    Math.round(((await ledger.client.api(apiKey, 'GET', '/v1/balance')).body.available_brl as number) * 100);

  const statementOf = async (apiKey: string): Promise<string> => {
    const month = new Date().toISOString().slice(0, 7);
    const response = await fetch(`${ledger.stack.gatewayUrl}/v1/statements/${month}`, {
      headers: { 'x-api-key': apiKey },
    });
    expect(response.status).toBe(200);
    return response.text();
  };

  test("a credit shows at once in the business's balance, balance transactions and statement, and in the operator's list", async () => {
    const { businessId, apiKey } = await ledger.client.createBusiness('Papelaria Compensada', noFee);

    const made = await adjust({
      business_id: businessId,
      amount: 1_550,
      reason: 'Crédito de cortesia pelo saque atrasado',
    });

    expect(made).toEqual({
      status: 201,
      body: {
        id: expect.stringMatching(/^adj_/),
        type: 'business',
        business_id: businessId,
        amount_brl: 15.5,
        debit_account: 'platform_adjustments',
        credit_account: 'available',
        allow_negative_available: false,
        reason: 'Crédito de cortesia pelo saque atrasado',
        requested_by: 'admin token',
        journal_id: expect.stringMatching(/^[0-9]+$/),
        balance_transaction_id: expect.stringMatching(/^btx_/),
        created_at: expect.any(String),
      },
    });
    expect((await ledger.client.api(apiKey, 'GET', '/v1/balance')).body).toMatchObject({
      available_brl: 15.5,
      pending_brl: 0,
    });
    const transactions = await ledger.client.api(apiKey, 'GET', '/v1/balance_transactions?type=adjustment');
    expect(transactions.body).toEqual({
      data: [
        {
          id: made.body.balance_transaction_id,
          type: 'adjustment',
          source_id: made.body.id,
          amount_brl: 15.5,
          fee_brl: 0,
          net_brl: 15.5,
          status: 'available',
          available_on: expect.any(String),
          created_at: expect.any(String),
          occurred_at: made.body.created_at,
          description: 'Crédito de cortesia pelo saque atrasado',
        },
      ],
      has_more: false,
    });
    const statement = await statementOf(apiKey);
    expect(statement).toContain(
      `${made.body.balance_transaction_id},${transactions.body.data[0].created_at},adjustment,${made.body.id},15.50,0.00,15.50,`,
    );
    expect(statement).toContain('Crédito de cortesia pelo saque atrasado');
    expect(statement).toMatch(/closing_balance_brl,+15\.50/);

    const listed = await operator('GET', `/admin/v1/adjustments?business_id=${businessId}`);
    expect(listed).toEqual({ status: 200, body: { data: [made.body], has_more: false } });
  });

  test('a debit lowers available; over available it is INSUFFICIENT_BALANCE, unless the operator allows a negative balance', async () => {
    const { businessId, apiKey } = await ledger.client.createBusiness('Bazar Debitado', noFee);
    const { payment_id: paymentId } = await ledger.client.createPayment(apiKey, {
      payment_method: 'pix',
      amount: 3_000,
    });
    await ledger.client.payInSandbox(apiKey, paymentId as string);
    await waitFor(async () => (await availableOf(apiKey)) === 3_000, {
      timeoutMs: EVENT_EFFECT_MS,
      intervalMs: 200,
      what: 'the payment available',
    });

    const debited = await adjust({
      business_id: businessId,
      amount: -1_000,
      reason: 'Estorno de crédito em dobro',
    });
    expect(debited.status).toBe(201);
    expect(debited.body).toMatchObject({ amount_brl: -10, debit_account: 'available' });
    expect(await availableOf(apiKey)).toBe(2_000);

    const over = await adjust({
      business_id: businessId,
      amount: -2_001,
      reason: 'Correção maior que o saldo',
    });
    expect(over).toEqual({
      status: 422,
      body: { error: { code: 'INSUFFICIENT_BALANCE', message: expect.any(String) } },
    });
    expect(await availableOf(apiKey)).toBe(2_000);

    const forced = await adjust({
      business_id: businessId,
      amount: -2_500,
      allow_negative_available: true,
      reason: 'Chargeback cobrado fora do gateway',
    });
    expect(forced.status).toBe(201);
    expect(await availableOf(apiKey)).toBe(-500);
    const lines = (await ledger.client.api(apiKey, 'GET', '/v1/balance_transactions?limit=10')).body
      .data as JsonBody[];
    expect(lines.map((line) => [line.type, line.net_brl])).toEqual([
      ['adjustment', -25],
      ['adjustment', -10],
      ['payment', 30],
    ]);
  });

  test('an Idempotency-Key sent again answers the same adjustment and credits once; another body under it is IDEMPOTENCY_CONFLICT', async () => {
    const { businessId, apiKey } = await ledger.client.createBusiness('Mercado Repetido', noFee);
    const key = newKey();
    const body = {
      business_id: businessId,
      amount: 700,
      reason: 'Devolução de tarifa',
      account: 'fee_revenue',
    };

    const first = await adjust(body, { 'Idempotency-Key': key });
    const again = await adjust(body, { 'Idempotency-Key': key });

    expect(first.status).toBe(201);
    expect(again).toEqual(first);
    expect(first.body.debit_account).toBe('fee_revenue');
    expect(await availableOf(apiKey)).toBe(700);
    expect((await adjust({ ...body, amount: 800 }, { 'Idempotency-Key': key })).body).toEqual({
      error: { code: 'IDEMPOTENCY_CONFLICT', message: expect.any(String) },
    });
    expect(await availableOf(apiKey)).toBe(700);
    const listed = await operator('GET', `/admin/v1/adjustments?business_id=${businessId}`);
    expect(listed.body.data).toEqual([first.body]);
  });

  test('a tariff the PSP took is a balance difference until the operator books it against psp_fees; then reconciliation finds none', async () => {
    const reconcile = async (): Promise<JsonBody> =>
      (await ledger.client.admin('POST', '/admin/v1/reconciliations', {}))!;
    const settledRun = () =>
      waitFor(
        async () => {
          const run = await reconcile();
          return (run.pending as unknown[]).length === 0 ? run : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 500, what: 'a run with nothing in flight' },
      );
    // Money at the PSP and in the books alike.
    const { apiKey } = await ledger.client.createBusiness('Quitanda Tarifada', noFee);
    const { payment_id: paymentId } = await ledger.client.createPayment(apiKey, {
      payment_method: 'pix',
      amount: 5_000,
    });
    await ledger.client.payInSandbox(apiKey, paymentId as string);
    await ledger.client.paymentIn(apiKey, paymentId as string, 'paid');
    const agreed = await settledRun();
    expect(agreed).toMatchObject({ status: 'completed', difference_count: 0 });

    await chargeTariffAtPsp(ledger.stack.pspUrl, '1.35', 'Tarifa Pix recebido');

    const drifted = await settledRun();
    expect(drifted.differences).toEqual([
      expect.objectContaining({
        kind: 'balance_mismatch',
        rail_amount_brl: Math.round((agreed.psp_balance_brl as number) * 100 - 135) / 100,
        books_amount_brl: agreed.books_cash_psp_brl,
      }),
    ]);

    const booked = await adjust(
      {
        amount: 135,
        debit_account: 'psp_fees',
        credit_account: 'cash_psp',
        reason: 'Tarifa do PSP sobre o Pix recebido',
      },
      { 'Idempotency-Key': newKey() },
    );
    expect(booked).toMatchObject({
      status: 201,
      body: { type: 'platform', business_id: null, amount_brl: 1.35, balance_transaction_id: null },
    });

    const explained = await settledRun();
    expect(explained).toMatchObject({ status: 'completed', difference_count: 0, differences: [] });
    expect(explained.books_cash_psp_brl).toBe(explained.psp_balance_brl);
    expect(explained.psp_balance_brl).toBe(drifted.psp_balance_brl);
  });

  test('hostile input is refused with the error shape, never a 5xx, and posts nothing', async () => {
    const { businessId } = await ledger.client.createBusiness('Loja Hostil', noFee);
    const before = await operator('GET', '/admin/v1/adjustments?limit=100');
    const reason = 'Correção';
    const cases: Array<[string, unknown, Record<string, string>, number, string]> = [
      [
        'an unknown business',
        { business_id: `biz_${'n'.repeat(24)}`, amount: 100, reason },
        {},
        404,
        'NOT_FOUND',
      ],
      ['a malformed business id', { business_id: 'loja', amount: 100, reason }, {}, 422, 'INVALID_FIELDS'],
      ['an amount of zero', { business_id: businessId, amount: 0, reason }, {}, 422, 'INVALID_AMOUNT'],
      [
        'a fraction of a centavo',
        { business_id: businessId, amount: 10.5, reason },
        {},
        422,
        'INVALID_AMOUNT',
      ],
      ['an amount as text', { business_id: businessId, amount: '100', reason }, {}, 422, 'INVALID_AMOUNT'],
      [
        'an unknown account',
        { business_id: businessId, amount: 100, account: 'suspense', reason },
        {},
        422,
        'INVALID_FIELDS',
      ],
      [
        'an unknown platform account',
        { amount: 100, debit_account: 'bank', credit_account: 'cash_psp', reason },
        {},
        422,
        'INVALID_FIELDS',
      ],
      ['no account and no business', { amount: 100, reason }, {}, 422, 'INVALID_FIELDS'],
      [
        'the same account on both sides',
        { amount: 100, debit_account: 'cash_psp', credit_account: 'cash_psp', reason },
        {},
        422,
        'INVALID_FIELDS',
      ],
      [
        'a negative platform amount',
        { amount: -100, debit_account: 'psp_fees', credit_account: 'cash_psp', reason },
        {},
        422,
        'INVALID_AMOUNT',
      ],
      ['no reason', { business_id: businessId, amount: 100 }, {}, 422, 'MISSING_FIELDS'],
      ['a blank reason', { business_id: businessId, amount: 100, reason: '   ' }, {}, 422, 'INVALID_FIELDS'],
      [
        'a reason too long',
        { business_id: businessId, amount: 100, reason: 'x'.repeat(301) },
        {},
        422,
        'INVALID_FIELDS',
      ],
      [
        'a NUL in the reason',
        `{"business_id":"${businessId}","amount":100,"reason":"a\\u0000b"}`,
        {},
        422,
        'INVALID_FIELDS',
      ],
      [
        'an Idempotency-Key with a space',
        { business_id: businessId, amount: 100, reason },
        { 'Idempotency-Key': 'a b' },
        422,
        'INVALID_FIELDS',
      ],
    ];
    const answers = [];
    for (const [what, body, headers] of cases) answers.push([what, await adjust(body, headers)] as const);

    expect(answers.map(([what, answer]) => [what, answer.status, answer.body.error?.code])).toEqual(
      cases.map(([what, , , status, code]) => [what, status, code]),
    );
    for (const [, answer] of answers)
      expect(answer.body).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
    expect(await operator('GET', '/admin/v1/adjustments?limit=100')).toEqual(before);
    expect(
      (await operator('GET', `/admin/v1/adjustments?starting_after=adj_${'n'.repeat(24)}`)).body.error.code,
    ).toBe('INVALID_FIELDS');
    expect((await operator('GET', '/admin/v1/adjustments?business_id=loja')).status).toBe(422);
  });
});
