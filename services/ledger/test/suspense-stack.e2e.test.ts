import { waitFor } from '@gateway/testkit';
import { pspSandbox, useLedgerStack } from './support/stack-books';

/** The PIX settlement delay of this stack: short enough to wait for, long enough to see the money pending. */
const PIX_DELAY_SECONDS = 8;
const CNPJ = '12345678000195';

/**
 * The whole stack as `npm start` runs it: a PIX paid at the PSP after its payment expired is late money the platform
 * holds for nobody yet (suspense), until the operator assigns it to the business through the admin API or the business
 * records it returned to the payer by hand. Either way it is credited as a PIX payment of it would be: less the
 * business's fee, pending until the PIX settlement delay is over, never payable out before.
 */
describe('money that belongs to no payment yet, through the stack', () => {
  const ledger = useLedgerStack({ SETTLEMENT_DELAY_PIX: String(PIX_DELAY_SECONDS) });
  let apiKey: string;
  let businessId: string;

  beforeAll(async () => {
    ({ apiKey, businessId } = await ledger.client.createBusiness('Mercearia Boa Vista', {
      pix: { percent_bps: 100, fixed_centavos: 0 },
    }));
    await ledger.client.admin('PUT', `/admin/v1/businesses/${businessId}/payout-account`, {
      pix_key: CNPJ,
      pix_key_type: 'cnpj',
      holder_document: CNPJ,
    });
  });

  /** A payer's bank pays the charge at the PSP (its sandbox route), as a payer whose app still shows the QR code. */
  const payAtPsp = async (txid: string): Promise<void> => {
    const paid = await (await pspSandbox(ledger.stack.pspUrl)).call('POST', `/v2/cob/pagar/${txid}`, {});
    expect(`${paid.status} ${paid.text}`).toMatch(/^200 /);
  };

  /** What the books hold in suspense (a credit account: minus the sum of its entries). */
  const suspenseHeld = async (): Promise<number> =>
    (
      await ledger.books.query(
        `SELECT COALESCE(-sum(amount_centavos), 0)::int AS held FROM entries WHERE account = 'suspense'`,
      )
    )[0].held;

  /** A PIX payment of `amount` centavos that expired, then paid at the PSP: its late funds, once kept and booked. */
  async function latePix(amount: number): Promise<{ paymentId: string; fundsId: string }> {
    const payment = await ledger.client.createPayment(apiKey, { payment_method: 'pix', amount });
    const paymentId = payment.payment_id as string;
    const expired = await ledger.client.api(apiKey, 'POST', `/v1/sandbox/payments/${paymentId}/simulate`, {
      outcome: 'expired',
    });
    expect(expired.status).toBe(202);
    await ledger.client.paymentIn(apiKey, paymentId, 'expired');
    const before = await suspenseHeld();
    // The PSP's own window has not passed: the payer's bank still pays it (the charge's txid, as the payment keeps it).
    const [{ external_id: txid }] = await ledger.books.query(
      `SELECT external_id FROM payment.payments WHERE id = $1`,
      [paymentId],
    );
    await payAtPsp(txid);
    const late = await waitFor(
      async () =>
        (await ledger.client.api(apiKey, 'GET', `/v1/payments/${paymentId}/received-funds`)).body.data?.[0],
      { timeoutMs: 30_000, intervalMs: 250, what: 'the late PIX kept as received funds' },
    );
    expect(late).toMatchObject({
      kind: 'late',
      rail: 'pix',
      amount_brl: amount / 100,
      value_brl: amount / 100,
      arrival_quote: null,
      status: 'held',
    });
    await waitFor(async () => (await suspenseHeld()) === before + amount, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the late PIX booked in suspense',
    });
    return { paymentId, fundsId: late.funds_id as string };
  }

  /**
   * What crediting late funds of `amount` to the business must show: pending less the 1 % fee, not payable out before
   * its available_on, then available; an adjustment balance transaction with its fee.
   */
  async function expectCreditedAsAPayment(fundsId: string, amount: number): Promise<void> {
    const fee = Math.floor((amount * 100 + 5_000) / 10_000);
    const net = amount - fee;
    const line = await waitFor(
      async () =>
        (
          (await ledger.client.api(apiKey, 'GET', '/v1/balance_transactions?type=adjustment')).body
            .data as Array<Record<string, unknown>>
        ).find((transaction) => transaction.source_id === fundsId),
      { timeoutMs: 30_000, intervalMs: 200, what: 'the credit posted' },
    );
    expect(line).toMatchObject({
      type: 'adjustment',
      amount_brl: amount / 100,
      fee_brl: fee / 100,
      net_brl: net / 100,
      status: 'pending',
    });
    const availableOn = Date.parse(line.available_on as string);
    expect(availableOn - Date.parse(line.occurred_at as string)).toBe(PIX_DELAY_SECONDS * 1000);
    const balance = (await ledger.client.api(apiKey, 'GET', '/v1/balance')).body;
    expect(balance.pending_brl).toBeGreaterThanOrEqual(net / 100);
    // Not spendable before available_on: a payout of what is available and this credit is refused.
    const payout = await ledger.client.api(apiKey, 'POST', '/v1/payouts', {
      amount: Math.round(balance.available_brl * 100) + net,
    });
    expect(Date.now()).toBeLessThan(availableOn);
    expect(payout).toMatchObject({ status: 422, body: { error: { code: 'INSUFFICIENT_BALANCE' } } });
    await waitFor(
      async () =>
        (
          (await ledger.client.api(apiKey, 'GET', '/v1/balance_transactions?type=adjustment')).body
            .data as Array<Record<string, unknown>>
        ).find((transaction) => transaction.source_id === fundsId && transaction.status === 'available'),
      { timeoutMs: 30_000, intervalMs: 200, what: 'the credit settled at its available_on' },
    );
    expect(Date.now()).toBeGreaterThanOrEqual(availableOn);
    const [revenue] = await ledger.books.query(
      `SELECT -sum(e.amount_centavos)::int AS fee FROM entries e JOIN journals j ON j.id = e.journal_id
        WHERE e.account = 'fee_revenue' AND j.cause_key LIKE 'funds:out:%' AND j.id IN (
          SELECT journal_id FROM balance_transactions WHERE source_id = $1)`,
      [fundsId],
    );
    expect(revenue.fee).toBe(fee);
    expect(
      await ledger.books.query(
        `SELECT journal_id FROM entries GROUP BY journal_id HAVING sum(amount_centavos) <> 0`,
      ),
    ).toEqual([]);
  }

  test('a late PIX is held in suspense, then the operator assigns it: credited as a payment, less the fee, pending', async () => {
    const { paymentId, fundsId } = await latePix(4_200);
    const [cash] = await ledger.books.query(
      `SELECT sum(amount_centavos)::int AS total FROM entries WHERE account = 'cash_psp'`,
    );
    expect(cash.total).toBe(4_200);
    // Nobody is owed it yet: the business's balance has not moved.
    expect((await ledger.client.api(apiKey, 'GET', '/v1/balance')).body).toMatchObject({
      available_brl: 0,
      pending_brl: 0,
    });

    const assigned = await ledger.client.admin('POST', `/admin/v1/received-funds/${fundsId}/assign`, {});
    expect(assigned).toMatchObject({
      funds_id: fundsId,
      status: 'assigned',
      payment_id: paymentId,
      business_id: businessId,
      assigned_payment_id: paymentId,
    });

    await expectCreditedAsAPayment(fundsId, 4_200);
    expect(await suspenseHeld()).toBe(0);
    // Assigned money is never returned afterwards, and never assigned twice.
    const returned = await ledger.client.api(
      apiKey,
      'POST',
      `/v1/payments/${paymentId}/received-funds/${fundsId}/return`,
    );
    expect(returned).toMatchObject({ status: 422, body: { error: { code: 'INVALID_STATUS' } } });
    const again = await fetch(`${ledger.stack.gatewayUrl}/admin/v1/received-funds/${fundsId}/assign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ledger.stack.adminToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(again.status).toBe(422);
    expect(
      (await ledger.client.api(apiKey, 'GET', `/v1/payments/${paymentId}/received-funds`)).body.data,
    ).toEqual([expect.objectContaining({ funds_id: fundsId, status: 'assigned' })]);
  }, 120_000);

  test('a late PIX the business records returned by hand is credited as a payment too: less the fee, pending', async () => {
    const { paymentId, fundsId } = await latePix(3_000);

    const returned = await ledger.client.api(
      apiKey,
      'POST',
      `/v1/payments/${paymentId}/received-funds/${fundsId}/return`,
    );
    expect(returned).toMatchObject({ status: 200, body: { status: 'returned', returned_by: 'manual' } });

    await expectCreditedAsAPayment(fundsId, 3_000);
    expect(await suspenseHeld()).toBe(0);
  }, 120_000);
});
