import {
  createPayment,
  newPublicId,
  pixChargePaid,
  updatePayment,
  type PaymentView,
} from '@gateway/contracts';
import { connectionsIdleInTransaction, waitFor } from '@gateway/testkit';
import { aCreatePayment, paymentServiceForTheseTests } from './support/harness';
import { aPixChargePaid } from './support/rail-events';

/** Rails that take this long to answer: well within the rail timeout, long enough to see what waits on them. */
const SLOW_RAIL_MS = 1500;

describe('payment service with slow rails: no transaction is held across a rail call', () => {
  const h = paymentServiceForTheseTests('payment-slow-rail', { RAIL_RPC_TIMEOUT_MS: '6000' });

  afterEach(() => {
    h.rails.delayMs = 0;
  });

  // A transaction held across a rail call sits idle for the rail's whole delay; one caught between two statements of
  // a busy commit, which a loaded machine can stretch, is not that.
  const idleInTransaction = () =>
    connectionsIdleInTransaction(h.service.dataSource, h.env.database.name, { forAtLeastMs: 200 });

  const pendingRailCalls = (name: string, since: number) => h.rails.callsOf(name).length - since;

  test('while creates and updates wait on the rail, reads answer fast and no connection sits idle in a transaction', async () => {
    const businessId = await h.newBusiness();
    const existing = await h.createPayment(businessId);
    const toUpdate = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    h.rails.delayMs = SLOW_RAIL_MS;
    const opensBefore = h.rails.callsOf('pix.charge.open.v1').length;
    const changesBefore = h.rails.callsOf('crypto.request.change-amount.v1').length;
    // More creates than the service's connection pool (10): each used to hold a connection during its rail call.
    const creates = Array.from({ length: 12 }, () =>
      h.request(createPayment, aCreatePayment(businessId, { amount_centavos: 4321 }), { timeoutMs: 15_000 }),
    );
    const update = h.request(
      updatePayment,
      { business_id: businessId, payment_id: toUpdate.payment.payment_id, amount_centavos: 7777 },
      { timeoutMs: 15_000 },
    );
    await waitFor(
      () =>
        pendingRailCalls('pix.charge.open.v1', opensBefore) === 12 &&
        pendingRailCalls('crypto.request.change-amount.v1', changesBefore) === 1,
      { what: 'every create and the update waiting on the rail' },
    );
    const readTimes: number[] = [];
    const idle: number[] = [];
    for (let sample = 0; sample < 5; sample += 1) {
      const started = Date.now();
      const view = await h.readPayment(businessId, existing.payment.payment_id);
      readTimes.push(Date.now() - started);
      expect(view.payment.payment_id).toBe(existing.payment.payment_id);
      idle.push(await idleInTransaction());
    }
    expect(idle).toEqual([0, 0, 0, 0, 0]);
    // A read never waits for the rail (SLOW_RAIL_MS): it would have, queued for a connection the creates held.
    expect(Math.max(...readTimes)).toBeLessThan(500);
    const replies = await Promise.all(creates);
    expect(replies.every((reply) => reply.ok)).toBe(true);
    const updated = await update;
    if (!updated.ok) throw new Error(JSON.stringify(updated.error));
    expect(updated.result.payment.amount_centavos).toBe(7777);
  });

  test('the same create and the same update delivered twice at once against a slow rail have one effect each', async () => {
    const businessId = await h.newBusiness();
    h.rails.delayMs = SLOW_RAIL_MS;
    const createId = newPublicId('cmd');
    const command = aCreatePayment(businessId, { amount_centavos: 5555 });
    const [first, second] = await Promise.all(
      [0, 1].map(() => h.request(createPayment, command, { timeoutMs: 15_000, messageId: createId })),
    );
    if (!first!.ok) throw new Error(JSON.stringify(first!.error));
    expect(second).toEqual(first);
    const paymentId = first!.result.payment.payment_id;
    const stored = await h.service.dataSource.query(`SELECT id FROM payments WHERE business_id = $1`, [
      businessId,
    ]);
    expect(stored).toEqual([{ id: paymentId }]);

    const updateId = newPublicId('cmd');
    const change = { business_id: businessId, payment_id: paymentId, amount_centavos: 6666 };
    const [changed, again] = await Promise.all(
      [0, 1].map(() => h.request(updatePayment, change, { timeoutMs: 15_000, messageId: updateId })),
    );
    if (!changed!.ok) throw new Error(JSON.stringify(changed!.error));
    expect(again).toEqual(changed);
    const [row] = await h.service.dataSource.query(
      `SELECT version, amount_centavos::int AS amount FROM payments WHERE id = $1`,
      [paymentId],
    );
    expect(row).toEqual({ version: 2, amount: 6666 });
    // One change, announced once (to the gateway's payment copies).
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1', 'payment.changed.v1']);
  });

  test('a payment paid while its amount change waited on the rail stays paid with its amount; the change is refused', async () => {
    const businessId = await h.newBusiness();
    const view: PaymentView = await h.createPayment(businessId, { amount_centavos: 10_000 });
    const paymentId = view.payment.payment_id;
    h.rails.delayMs = SLOW_RAIL_MS;
    const changesBefore = h.rails.callsOf('pix.charge.change-amount.v1').length;
    const change = h.request(
      updatePayment,
      { business_id: businessId, payment_id: paymentId, amount_centavos: 12_000 },
      { timeoutMs: 15_000 },
    );
    await waitFor(() => pendingRailCalls('pix.charge.change-amount.v1', changesBefore) === 1, {
      what: 'the amount change waiting on the rail',
    });
    await h.client.publish(pixChargePaid, aPixChargePaid(view.payment));
    // Paid while the change is still at the rail: the payment row is not locked by the change.
    const paid = await h.waitForPaymentStatus(businessId, paymentId, 'paid');
    expect(pendingRailCalls('pix.charge.change-amount.v1', changesBefore)).toBe(1);
    expect(paid.payment.amount_centavos).toBe(10_000);
    const reply = await change;
    expect(reply).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: 'Operação não permitida: o pagamento está com status paid.' },
    });
    expect((await h.readPayment(businessId, paymentId)).payment).toMatchObject({
      status: 'paid',
      amount_centavos: 10_000,
    });
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
  });

  test('two amount changes of one payment at once: one reaches the rail, the other is told to retry, the stored amount is the rail’s', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { amount_centavos: 10_000 });
    const paymentId = view.payment.payment_id;
    h.rails.delayMs = SLOW_RAIL_MS;
    const changesBefore = h.rails.callsOf('pix.charge.change-amount.v1').length;
    const change = (amount: number) =>
      h.request(
        updatePayment,
        { business_id: businessId, payment_id: paymentId, amount_centavos: amount },
        { timeoutMs: 15_000 },
      );
    const [first, second] = await Promise.all([change(11_000), change(12_000)]);
    const answers = [first, second];
    const made = answers.filter((reply) => reply.ok);
    const refused = answers.filter((reply) => !reply.ok);
    expect(made).toHaveLength(1);
    expect(refused).toEqual([
      {
        ok: false,
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'Outra alteração deste pagamento está em andamento. Tente novamente em instantes.',
        },
      },
    ]);
    expect(pendingRailCalls('pix.charge.change-amount.v1', changesBefore)).toBe(1);
    const [call] = h.rails.callsOf('pix.charge.change-amount.v1').slice(changesBefore);
    const stored = await h.readPayment(businessId, paymentId);
    expect(stored.payment.amount_centavos).toBe(call!.payload.amount_centavos);
  });
});
