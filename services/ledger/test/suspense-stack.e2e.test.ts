import type { DataSource } from 'typeorm';
import { stackClient, startStack, waitFor, type RunningStack, type StackClient } from '@gateway/testkit';
import { pspSandbox, openLedgerBooks } from './support/stack-books';

/**
 * The whole stack as `npm start` runs it: a PIX paid at the PSP after its payment expired is late money the platform
 * holds for nobody yet (suspense), until the operator assigns it to the business through the admin API.
 */
describe('money that belongs to no payment yet, through the stack', () => {
  let stack: RunningStack;
  let client: StackClient;
  let books: DataSource;
  let apiKey: string;
  let businessId: string;

  beforeAll(async () => {
    stack = await startStack();
    client = stackClient(stack);
    ({ apiKey, businessId } = await client.createBusiness('Mercearia Boa Vista', {
      pix: { percent_bps: 100, fixed_centavos: 0 },
    }));
    books = await openLedgerBooks(stack);
  }, 150_000);

  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await books?.destroy();
    await stack?.stop();
  });

  /** A payer's bank pays the charge at the PSP (its sandbox route), as a payer whose app still shows the QR code. */
  const payAtPsp = async (txid: string): Promise<void> => {
    const paid = await (await pspSandbox(stack.pspUrl)).call('POST', `/v2/cob/pagar/${txid}`, {});
    expect(`${paid.status} ${paid.text}`).toMatch(/^200 /);
  };

  /** What the books hold in suspense (a credit account: minus the sum of its entries). */
  const suspenseHeld = async (): Promise<number> =>
    (
      await books.query(
        `SELECT COALESCE(-sum(amount_centavos), 0)::int AS held FROM entries WHERE account = 'suspense'`,
      )
    )[0].held;

  test('a late PIX is held in suspense, then the operator assigns it and the business is credited once', async () => {
    const payment = await client.createPayment(apiKey, { payment_method: 'pix', amount: 4_200 });
    const paymentId = payment.payment_id as string;
    const expired = await client.api(apiKey, 'POST', `/v1/sandbox/payments/${paymentId}/simulate`, {
      outcome: 'expired',
    });
    expect(expired.status).toBe(202);
    await client.paymentIn(apiKey, paymentId, 'expired');

    // The PSP's own window has not passed: the payer's bank still pays it (the charge's txid, as the payment keeps it).
    const [{ external_id: txid }] = await books.query(
      `SELECT external_id FROM payment.payments WHERE id = $1`,
      [paymentId],
    );
    await payAtPsp(txid);

    const late = await waitFor(
      async () =>
        (await client.api(apiKey, 'GET', `/v1/payments/${paymentId}/received-funds`)).body.data?.[0],
      { timeoutMs: 30_000, intervalMs: 250, what: 'the late PIX kept as received funds' },
    );
    expect(late).toMatchObject({ kind: 'late', rail: 'pix', amount_brl: 42, status: 'held' });
    await waitFor(async () => (await suspenseHeld()) === 4_200, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the late PIX booked in suspense',
    });
    const [cash] = await books.query(
      `SELECT sum(amount_centavos)::int AS total FROM entries WHERE account = 'cash_psp'`,
    );
    expect(cash.total).toBe(4_200);
    // Nobody is owed it yet: the business's balance has not moved.
    expect((await client.api(apiKey, 'GET', '/v1/balance')).body).toMatchObject({
      available_brl: 0,
      pending_brl: 0,
    });

    const assigned = await client.admin('POST', `/admin/v1/received-funds/${late.funds_id}/assign`, {});
    expect(assigned).toMatchObject({
      funds_id: late.funds_id,
      status: 'assigned',
      payment_id: paymentId,
      business_id: businessId,
      assigned_payment_id: paymentId,
    });

    const balance = await waitFor(
      async () => {
        const read = (await client.api(apiKey, 'GET', '/v1/balance')).body;
        return read.available_brl === 42 ? read : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the assigned money credited to the business' },
    );
    expect(balance).toMatchObject({ pending_brl: 0, reserved_brl: 0, blocked_brl: 0 });
    const lines = (await client.api(apiKey, 'GET', '/v1/balance_transactions?type=adjustment')).body.data;
    expect(lines).toEqual([
      expect.objectContaining({
        type: 'adjustment',
        source_id: late.funds_id,
        amount_brl: 42,
        fee_brl: 0,
        net_brl: 42,
        status: 'available',
      }),
    ]);
    expect(await suspenseHeld()).toBe(0);
    // Assigned money is never returned afterwards, and never assigned twice.
    const returned = await client.api(
      apiKey,
      'POST',
      `/v1/payments/${paymentId}/received-funds/${late.funds_id}/return`,
    );
    expect(returned).toMatchObject({ status: 422, body: { error: { code: 'INVALID_STATUS' } } });
    const again = await fetch(`${stack.gatewayUrl}/admin/v1/received-funds/${late.funds_id}/assign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(again.status).toBe(422);
    expect((await client.api(apiKey, 'GET', `/v1/payments/${paymentId}/received-funds`)).body.data).toEqual([
      expect.objectContaining({ funds_id: late.funds_id, status: 'assigned' }),
    ]);
    expect(
      await books.query(
        `SELECT journal_id FROM entries GROUP BY journal_id HAVING sum(amount_centavos) <> 0`,
      ),
    ).toEqual([]);
  }, 120_000);
});
