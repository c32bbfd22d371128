import {
  createAdjustment,
  getBalance,
  listAdjustments,
  listBalanceTransactions,
  newPublicId,
  type AdjustmentRecord,
  type CreateAdjustment,
} from '@gateway/contracts';
import {
  aPaymentEvent,
  poisonCase,
  poisonedEnvelope,
  publishAndAwaitParking,
  waitFor,
} from '@gateway/testkit';
import { booksDisagreements } from './support/books';
import { ledgerServiceForTheseTests } from './support/ledger-service';

type Reply<R> = { ok: true; result: R } | { ok: false; error: { code: string; message: string } };

async function ok<R>(reply: Promise<Reply<R>>): Promise<R> {
  const answer = await reply;
  if (!answer.ok) throw new Error(`refused: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

async function refusal<R>(reply: Promise<Reply<R>>): Promise<string> {
  const answer = await reply;
  if (answer.ok) throw new Error(`expected a refusal, got ${JSON.stringify(answer.result)}`);
  return answer.error.code;
}

/** What an operator asks: a reason and who asked, the rest from the test. */
const anAdjustment = (fields: Partial<CreateAdjustment> & { amount_centavos: number }): CreateAdjustment => ({
  reason: 'Correção de lançamento',
  requested_by: 'admin token',
  ...fields,
});

describe('operator adjustments in the ledger', () => {
  const bed = ledgerServiceForTheseTests('ledger-adjustments');

  const adjust = (command: CreateAdjustment, messageId?: string) =>
    bed.request(createAdjustment, command, messageId === undefined ? {} : { messageId });
  const balanceOf = (businessId: string) => ok(bed.request(getBalance, { business_id: businessId }));
  const entriesOf = (journalId: string) =>
    bed.sql<{ account: string; business_id: string | null; amount: string }>(
      `SELECT account, business_id, amount_centavos::text AS amount FROM entries WHERE journal_id = $1
        ORDER BY amount_centavos DESC`,
      [journalId],
    );
  const journalsOf = async (adjustment: AdjustmentRecord) =>
    Number(
      (
        await bed.sql<{ n: string }>(`SELECT count(*) AS n FROM journals WHERE cause_key = $1`, [
          `adjustment:${adjustment.adjustment_id}`,
        ])
      )[0]!.n,
    );

  /** A business with `available` centavos available (one paid payment, settled at once). */
  async function businessWith(available: number): Promise<string> {
    const businessId = newPublicId('biz');
    await bed.confirm(
      aPaymentEvent({ business_id: businessId, status: 'paid', amount_centavos: available, fee_centavos: 0 }),
    );
    await waitFor(async () => (await balanceOf(businessId)).available_centavos === available, {
      what: 'the payment settled',
    });
    return businessId;
  }

  afterEach(async () => {
    expect(await booksDisagreements((text) => bed.sql(text))).toEqual([]);
  });

  test('a credit raises available at once, against platform_adjustments, with an available adjustment balance transaction', async () => {
    const businessId = newPublicId('biz');

    const credited = await ok(
      adjust(
        anAdjustment({
          business_id: businessId,
          amount_centavos: 1_500,
          reason: 'Crédito de cortesia pelo atraso',
        }),
      ),
    );

    expect(credited).toEqual({
      adjustment_id: expect.stringMatching(/^adj_/),
      kind: 'business',
      business_id: businessId,
      amount_centavos: 1_500,
      debit_account: 'platform_adjustments',
      credit_account: 'available',
      allow_negative_available: false,
      reason: 'Crédito de cortesia pelo atraso',
      requested_by: 'admin token',
      journal_id: expect.stringMatching(/^[0-9]+$/),
      balance_transaction_id: expect.stringMatching(/^btx_/),
      created_at: expect.any(String),
    });
    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 1_500, pending_centavos: 0 });
    expect(await entriesOf(credited.journal_id)).toEqual([
      { account: 'platform_adjustments', business_id: null, amount: '1500' },
      { account: 'available', business_id: businessId, amount: '-1500' },
    ]);
    const page = await ok(bed.request(listBalanceTransactions, { business_id: businessId, limit: 10 }));
    expect(page.data).toEqual([
      expect.objectContaining({
        balance_transaction_id: credited.balance_transaction_id,
        type: 'adjustment',
        source_id: credited.adjustment_id,
        amount_centavos: 1_500,
        fee_centavos: 0,
        net_centavos: 1_500,
        status: 'available',
        description: 'Crédito de cortesia pelo atraso',
      }),
    ]);
  });

  test('a debit lowers available; over available it is INSUFFICIENT_BALANCE unless a negative balance is allowed', async () => {
    const businessId = await businessWith(2_000);

    const debited = await ok(adjust(anAdjustment({ business_id: businessId, amount_centavos: -500 })));
    expect(debited).toMatchObject({ debit_account: 'available', credit_account: 'platform_adjustments' });
    expect((await balanceOf(businessId)).available_centavos).toBe(1_500);

    expect(await refusal(adjust(anAdjustment({ business_id: businessId, amount_centavos: -1_501 })))).toBe(
      'INSUFFICIENT_BALANCE',
    );
    expect((await balanceOf(businessId)).available_centavos).toBe(1_500);

    const forced = await ok(
      adjust(
        anAdjustment({ business_id: businessId, amount_centavos: -1_600, allow_negative_available: true }),
      ),
    );
    expect(forced.allow_negative_available).toBe(true);
    expect((await balanceOf(businessId)).available_centavos).toBe(-100);
    const lines = await ok(
      bed.request(listBalanceTransactions, { business_id: businessId, type: 'adjustment', limit: 10 }),
    );
    expect(lines.data.map((line) => line.net_centavos)).toEqual([-1_600, -500]);
  });

  test('a fee given back is credited against fee_revenue', async () => {
    const businessId = newPublicId('biz');
    const refunded = await ok(
      adjust(anAdjustment({ business_id: businessId, amount_centavos: 99, counter_account: 'fee_revenue' })),
    );
    expect(await entriesOf(refunded.journal_id)).toEqual([
      { account: 'fee_revenue', business_id: null, amount: '99' },
      { account: 'available', business_id: businessId, amount: '-99' },
    ]);
  });

  test('a platform adjustment moves money between two platform accounts, with no business and no balance transaction', async () => {
    const tariff = await ok(
      adjust(
        anAdjustment({
          amount_centavos: 125,
          debit_account: 'psp_fees',
          credit_account: 'cash_psp',
          reason: 'Tarifa do PSP',
        }),
      ),
    );

    expect(tariff).toMatchObject({
      kind: 'platform',
      business_id: null,
      debit_account: 'psp_fees',
      credit_account: 'cash_psp',
      balance_transaction_id: null,
    });
    expect(await entriesOf(tariff.journal_id)).toEqual([
      { account: 'psp_fees', business_id: null, amount: '125' },
      { account: 'cash_psp', business_id: null, amount: '-125' },
    ]);
  });

  test.each([
    ['no account on either side', { amount_centavos: 100 }, 'INVALID_FIELDS'],
    [
      'the same account twice',
      { amount_centavos: 100, debit_account: 'cash_psp', credit_account: 'cash_psp' },
      'INVALID_FIELDS',
    ],
    [
      'a negative platform amount',
      { amount_centavos: -100, debit_account: 'psp_fees', credit_account: 'cash_psp' },
      'INVALID_AMOUNT',
    ],
    [
      'a business with platform accounts',
      { business_id: newPublicId('biz'), amount_centavos: 100, debit_account: 'psp_fees' },
      'INVALID_FIELDS',
    ],
    [
      'a platform adjustment allowing a negative balance',
      {
        amount_centavos: 100,
        debit_account: 'psp_fees',
        credit_account: 'cash_psp',
        allow_negative_available: true,
      },
      'INVALID_FIELDS',
    ],
  ] as Array<[string, Partial<CreateAdjustment> & { amount_centavos: number }, string]>)(
    '%s is refused, and nothing is posted',
    async (_what, fields, code) => {
      const before = await bed.sql<{ n: string }>(`SELECT count(*) AS n FROM adjustments`);
      expect(await refusal(adjust(anAdjustment(fields)))).toBe(code);
      expect(await bed.sql(`SELECT count(*) AS n FROM adjustments`)).toEqual(before);
    },
  );

  test('one Idempotency-Key makes one adjustment: the same request again answers it, another request under it is IDEMPOTENCY_CONFLICT', async () => {
    const businessId = newPublicId('biz');
    const key = `adj-${newPublicId('k')}`;
    const request = anAdjustment({ business_id: businessId, amount_centavos: 700, idempotency_key: key });

    const first = await ok(adjust(request));
    const again = await ok(adjust(request));

    expect(again).toEqual(first);
    expect(await journalsOf(first)).toBe(1);
    expect((await balanceOf(businessId)).available_centavos).toBe(700);
    expect(await refusal(adjust({ ...request, amount_centavos: 800 }))).toBe('IDEMPOTENCY_CONFLICT');
    expect((await balanceOf(businessId)).available_centavos).toBe(700);
  });

  test('a command delivered twice posts once and answers the same adjustment', async () => {
    const businessId = newPublicId('biz');
    const messageId = newPublicId('msg');
    const command = anAdjustment({ business_id: businessId, amount_centavos: 300 });

    const [first, second] = await Promise.all([
      ok(adjust(command, messageId)),
      ok(adjust(command, messageId)),
    ]);

    expect(second).toEqual(first);
    expect(await journalsOf(first)).toBe(1);
    expect((await balanceOf(businessId)).available_centavos).toBe(300);
  });

  test('the list answers newest first, one business or all, who asked and why, and refuses an unknown cursor', async () => {
    const businessId = newPublicId('biz');
    const older = await ok(
      adjust(anAdjustment({ business_id: businessId, amount_centavos: 100, reason: 'primeiro' })),
    );
    const newer = await ok(
      adjust(anAdjustment({ business_id: businessId, amount_centavos: 200, reason: 'segundo' })),
    );
    await ok(adjust(anAdjustment({ business_id: newPublicId('biz'), amount_centavos: 300 })));

    const first = await ok(bed.request(listAdjustments, { business_id: businessId, limit: 1 }));
    expect(first).toEqual({ data: [newer], has_more: true });
    const rest = await ok(
      bed.request(listAdjustments, {
        business_id: businessId,
        limit: 10,
        starting_after: newer.adjustment_id,
      }),
    );
    expect(rest).toEqual({ data: [older], has_more: false });
    const all = await ok(bed.request(listAdjustments, { limit: 100 }));
    expect(all.data.length).toBeGreaterThanOrEqual(3);
    expect(
      await refusal(bed.request(listAdjustments, { limit: 10, starting_after: newPublicId('adj') })),
    ).toBe('INVALID_FIELDS');
  });

  test('the database keeps an adjustment as it was posted', async () => {
    const made = await ok(adjust(anAdjustment({ business_id: newPublicId('biz'), amount_centavos: 50 })));
    await expect(
      bed.sql(`UPDATE adjustments SET amount_centavos = 5000 WHERE id = $1`, [made.adjustment_id]),
    ).rejects.toThrow(/immutable/);
    await expect(bed.sql(`DELETE FROM adjustments WHERE id = $1`, [made.adjustment_id])).rejects.toThrow(
      /immutable/,
    );
  });

  test.each([
    poisonCase(createAdjustment, anAdjustment({ business_id: newPublicId('biz'), amount_centavos: 100 })),
  ])('a poison %s command is parked and posts nothing', async (_name, definition, payload) => {
    const envelope = poisonedEnvelope(definition, payload, { reason: 'a\u0000b' });
    const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'ledger', 'commands', envelope);
    expect(parked).toEqual([expect.objectContaining({ messageId: envelope.id, type: definition.name })]);
    expect(
      await bed.sql(`SELECT 1 FROM adjustments WHERE business_id = $1`, [
        (payload as CreateAdjustment).business_id,
      ]),
    ).toEqual([]);
  });

  test('after the service loses its broker connection, an adjustment is answered and posted', async () => {
    const businessId = newPublicId('biz');
    bed.service.broker.dropConnectionForTesting();
    const made = await waitFor(
      async () => {
        const answer = await adjust(
          anAdjustment({
            business_id: businessId,
            amount_centavos: 400,
            idempotency_key: `reconnect-${businessId}`,
          }),
        );
        return answer.ok ? answer.result : undefined;
      },
      { timeoutMs: 15_000, what: 'the adjustment answered after reconnect' },
    );
    expect(made.amount_centavos).toBe(400);
    expect((await balanceOf(businessId)).available_centavos).toBe(400);
  });
});
