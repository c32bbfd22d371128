import {
  createPayment,
  newPublicId,
  pixChargeClosed,
  pixChargePaid,
  setFeeRule,
  updatePayment,
  type AmountParts,
  type PaymentView,
} from '@gateway/contracts';
import { publishAndAwaitHandling } from '@gateway/testkit';
import { DueDatePayments1764403200810 } from '../src/persistence/migrations/1764403200810-due-date-payments';
import { aPixChargePaid } from './support/rail-events';
import { aCreatePayment, paymentServiceForTheseTests, type Harness } from './support/harness';

const DEBTOR = { name: 'Francisco da Silva', document: '12345678909' };
const DUE = {
  date: '2030-02-11',
  payable_days_after: 10,
  fine: { percent_bps: 200 },
  interest: { amount: 15 },
};
const LATE: AmountParts = { original: 10_000, fine: 200, interest: 45, reduction: 0, discount: 0 };

async function confirmedRecords(h: Harness, paymentId: string): Promise<Array<PaymentView['payment']>> {
  const rows: Array<{ payment: PaymentView['payment'] }> = await h.service.dataSource.query(
    `SELECT envelope->'payload'->'payment' AS payment FROM outbox
      WHERE name = 'payment.confirmed.v1' AND envelope->'payload'->'payment'->>'payment_id' = $1`,
    [paymentId],
  );
  return rows.map((row) => row.payment);
}

describe('a PIX payment with a due date', () => {
  const h = paymentServiceForTheseTests('payment-due-date');

  const dueDatePayment = async (businessId: string) =>
    h.createPayment(businessId, { amount_centavos: 10_000, debtor: DEBTOR, due: DUE });

  test('opens its charge with the rules, and has a due date and last payable day where others have expires_at', async () => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    expect(h.rails.callsOf('pix.charge.open.v1').length).toBeGreaterThan(0);
    expect(created.payment).toMatchObject({
      due_date: '2030-02-11',
      payable_until: '2030-02-21',
      expires_at: null,
      amount_paid_centavos: null,
      amount_parts: null,
    });
    // Any other payment reads as it always did.
    const plain = await h.createPayment(businessId);
    expect(plain.payment).not.toHaveProperty('due_date');
    expect(plain.payment.expires_at).toBe(plain.pix!.expires_at);
  });

  test('a PIX adapter that ignored the due date (an older one) fails the create: no payment without its due date', async () => {
    const businessId = await h.newBusiness();
    h.rails.ignoresDue = true;
    try {
      const reply = await h.request(createPayment, aCreatePayment(businessId, { debtor: DEBTOR, due: DUE }));
      expect(reply).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
      const rows: unknown[] = await h.service.dataSource.query(
        'SELECT 1 FROM payments WHERE business_id = $1',
        [businessId],
      );
      expect(rows).toEqual([]);
    } finally {
      h.rails.ignoresDue = false;
    }
  });

  test('paid late, it keeps what was paid and its parts; the fee is on what was paid under the rule it was created with', async () => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    // A rule changed after the payment was made does not apply to it.
    const changed = await h.request(setFeeRule, {
      business_id: businessId,
      method: 'pix',
      percent_bps: 900,
      fixed_centavos: 0,
    });
    expect(changed.ok).toBe(true);
    const messageId = newPublicId('msg');
    const paid = aPixChargePaid(created.payment, { amount_centavos: 10_245, amount_parts: LATE });
    await publishAndAwaitHandling(h.env.config, pixChargePaid, paid, { messageId });
    // The same event delivered again changes nothing.
    await publishAndAwaitHandling(h.env.config, pixChargePaid, paid, { messageId });
    const view = await h.waitForPaymentStatus(businessId, created.payment.payment_id, 'paid');
    // 1.5 % of R$ 102,45 (rounded half up) + R$ 0,10.
    expect(view.payment).toMatchObject({
      amount_centavos: 10_000,
      amount_paid_centavos: 10_245,
      amount_parts: LATE,
      fee_centavos: 154 + 10,
    });
    const confirmed = await confirmedRecords(h, created.payment.payment_id);
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]).toMatchObject({
      amount_paid_centavos: 10_245,
      amount_parts: LATE,
      fee_centavos: 164,
    });
    expect(await h.receivedFunds(created.payment.payment_id)).toEqual([]);
  });

  test('a Pix its rail did not accept (no parts) never pays it, even for more than the original, nor does a closure listing it', async () => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    const wrong = aPixChargePaid(created.payment, { amount_centavos: 20_000, amount_parts: null });
    await publishAndAwaitHandling(h.env.config, pixChargePaid, wrong, { messageId: newPublicId('msg') });
    expect((await h.readPayment(businessId, created.payment.payment_id)).payment.status).toBe('processing');
    await publishAndAwaitHandling(
      h.env.config,
      pixChargeClosed,
      {
        payment_id: created.payment.payment_id,
        txid: created.payment.external_id!,
        reason: 'underpaid',
        detail: null,
        received_pix: [{ end_to_end_id: wrong.end_to_end_id, amount_centavos: 20_000 }],
      },
      { messageId: newPublicId('msg') },
    );
    // More than the original, not accepted: never UNDERPAID; the money is held as excess for the operator.
    const ended = await h.waitForPaymentStatus(businessId, created.payment.payment_id, 'failed');
    expect(ended.payment).toMatchObject({ failure_code: 'AMOUNT_NOT_ACCEPTED', amount_paid_centavos: null });
    expect(await h.receivedFunds(created.payment.payment_id)).toEqual([
      expect.objectContaining({ kind: 'excess', centavos: 20_000 }),
    ]);
  });

  test('a charge its rail closed at once on a Pix it did not accept fails AMOUNT_NOT_ACCEPTED, the Pix held', async () => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    const wrong = aPixChargePaid(created.payment, { amount_centavos: 9_000, amount_parts: null });
    await publishAndAwaitHandling(
      h.env.config,
      pixChargeClosed,
      {
        payment_id: created.payment.payment_id,
        txid: created.payment.external_id!,
        reason: 'failed',
        detail: 'valor do Pix fora das regras da cobrança com vencimento',
        cause: 'amount_not_accepted',
        received_pix: [{ end_to_end_id: wrong.end_to_end_id, amount_centavos: 9_000 }],
      },
      { messageId: newPublicId('msg') },
    );
    const ended = await h.waitForPaymentStatus(businessId, created.payment.payment_id, 'failed');
    expect(ended.payment).toMatchObject({ failure_code: 'AMOUNT_NOT_ACCEPTED', amount_paid_centavos: null });
    expect(await h.receivedFunds(created.payment.payment_id)).toEqual([
      expect.objectContaining({ kind: 'partial', centavos: 9_000 }),
    ]);
  });

  test('parts that do not add up to the Pix, or another original, do not pay it', async () => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    for (const [amount, parts] of [
      [10_300, LATE],
      [10_345, { ...LATE, original: 10_100 }],
    ] as Array<[number, AmountParts]>)
      await publishAndAwaitHandling(
        h.env.config,
        pixChargePaid,
        aPixChargePaid(created.payment, { amount_centavos: amount, amount_parts: parts }),
        { messageId: newPublicId('msg') },
      );
    expect((await h.readPayment(businessId, created.payment.payment_id)).payment.status).toBe('processing');
  });

  test('an event whose parts are negative is parked, and the payment stays open', async () => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    const { messageId, parked } = await h.publishPoisoned(
      'events',
      pixChargePaid,
      aPixChargePaid(created.payment, { amount_parts: LATE }),
      { amount_parts: { ...LATE, fine: -1 } },
    );
    expect(parked).toEqual([expect.objectContaining({ messageId, reason: expect.stringContaining('fine') })]);
    expect((await h.readPayment(businessId, created.payment.payment_id)).payment.status).toBe('processing');
  });

  test('its amount does not change', async () => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    const reply = await h.request(updatePayment, {
      business_id: businessId,
      payment_id: created.payment.payment_id,
      amount_centavos: 20_000,
    });
    expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_FIELDS' } });
    expect(h.rails.callsOf('pix.charge.change-amount.v1')).toEqual([]);
  });

  test.each([
    ['parts that do not add up', { paid_fine_centavos: 201 }],
    ['a negative part', { paid_fine_centavos: -200, amount_paid_centavos: 9845 }],
    ['an original other than the amount', { paid_original_centavos: 10_001, amount_paid_centavos: 10_246 }],
    ['only some of the parts', { paid_discount_centavos: null }],
    ['a fee over what was paid', { fee_centavos: 10_246 }],
  ])('the database refuses %s', async (_case, change) => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    const columns: Record<string, number | null> = {
      status: null,
      amount_paid_centavos: 10_245,
      paid_original_centavos: 10_000,
      paid_fine_centavos: 200,
      paid_interest_centavos: 45,
      paid_reduction_centavos: 0,
      paid_discount_centavos: 0,
      ...change,
    };
    delete columns.status;
    const names = Object.keys(columns);
    await expect(
      h.service.dataSource.query(
        `UPDATE payments SET status = 'paid', ${names.map((name, i) => `${name} = $${i + 2}`).join(', ')}
          WHERE id = $1`,
        [created.payment.payment_id, ...names.map((name) => columns[name])],
      ),
    ).rejects.toThrow(/violates check constraint "payments_amount_parts/);
  });

  test('the database refuses parts on a payment that is not paid', async () => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    await expect(
      h.service.dataSource.query(
        `UPDATE payments SET amount_paid_centavos = 10000, paid_original_centavos = 10000, paid_fine_centavos = 0,
                paid_interest_centavos = 0, paid_reduction_centavos = 0, paid_discount_centavos = 0 WHERE id = $1`,
        [created.payment.payment_id],
      ),
    ).rejects.toThrow(/violates check constraint "payments_amount_parts_add_up"/);
  });

  // Last: it locks the table (inside a transaction it rolls back).
  test('undoing its migration runs on a database holding a due-date payment refunded beyond its original', async () => {
    const businessId = await h.newBusiness();
    const created = await dueDatePayment(businessId);
    const runner = h.service.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      // Paid R$ 102,45 with a fine, and all of it refunded: more than its original R$ 100,00.
      await runner.query(
        `UPDATE payments SET status = 'paid', amount_paid_centavos = 10245, paid_original_centavos = 10000,
                paid_fine_centavos = 200, paid_interest_centavos = 45, paid_reduction_centavos = 0,
                paid_discount_centavos = 0, refund_reserved_centavos = 10245, refunded_centavos = 10245
          WHERE id = $1`,
        [created.payment.payment_id],
      );
      await new DueDatePayments1764403200810().down(runner);
      // The old rule is back for what is written from then on.
      await expect(
        runner.query(
          `UPDATE payments SET refund_reserved_centavos = 10001, refunded_centavos = 0 WHERE id = $1`,
          [created.payment.payment_id],
        ),
      ).rejects.toThrow(/violates check constraint "payments_refunds_within_amount"/);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
