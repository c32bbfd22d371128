import {
  getPayment,
  newPublicId,
  paymentChanged,
  paymentConfirmed,
  paymentCreated,
  refundSucceeded,
  updatePayment,
  type PaymentRecord,
  type PaymentView,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { aPaymentRecord, aPixInstructions, waitFor } from '@gateway/testkit';
import { EventFeedHealth } from '../src/domain/event-feed-health';
import { storePaymentCopy } from '../src/persistence';
import { harnessWithMerchantForTheseTests } from './support/harness';

/**
 * The gateway's payment copies (docs/adr/0042-gateway-payment-read-model.md) against a fake payment service: which
 * reads the copy answers and which go to the payment service, whatever order replies and events arrive in.
 */
describe('api gateway: payment reads from its copies', () => {
  const h = harnessWithMerchantForTheseTests('gw-copies', { merchant: 'Mercearia Cópia' });
  const pix = aPixInstructions();

  /** The fake payment service's payment, as it stands now. */
  let truth: PaymentView;
  const get = (paymentId = truth.payment.payment_id) =>
    h.http.get(`/v1/payments/${paymentId}`).set('x-api-key', h.merchant.api_key);
  const asked = () => h.fakes.receivedOf(getPayment).length;
  /** A read, if the payment service was asked for it (not answered from the copy). */
  const readAsking = async () => {
    const before = asked();
    const read = await get();
    return asked() > before ? read : undefined;
  };

  const record = (overrides: Partial<PaymentRecord>): PaymentRecord =>
    ({ ...truth.payment, ...overrides, updated_at: new Date().toISOString() }) as PaymentRecord;
  const eventOf = (payment: PaymentRecord, occurredAt = new Date()) => ({
    event_id: newPublicId('evt'),
    business_id: payment.business_id,
    occurred_at: occurredAt.toISOString(),
    payment,
  });

  beforeEach(() => {
    truth = {
      payment: aPaymentRecord({
        business_id: h.merchant.business_id,
        version: 1,
        refund_reserved_centavos: 0,
      }),
      pix,
    };
    h.fakes.on(getPayment, async (query) => {
      if (query.payment_id !== truth.payment.payment_id || query.business_id !== truth.payment.business_id)
        throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
      return truth;
    });
  });

  test('the first read asks the payment service; the next ones are answered from the copy', async () => {
    const before = asked();
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ payment_id: truth.payment.payment_id, status: 'processing' });
    expect(first.body.pix.copia_e_cola).toBe(pix.copia_e_cola);
    for (let read = 0; read < 5; read += 1) expect((await get()).body).toEqual(first.body);
    expect(asked()).toBe(before + 1);
  });

  test('an outcome arrives by its event, and a late older event never takes the copy back', async () => {
    await get();
    const before = asked();
    const paid = record({ status: 'paid', version: 2 });
    await h.fakes.broker.publish(paymentConfirmed, eventOf(paid));
    await waitFor(async () => ((await get()).body.status === 'paid' ? true : undefined), {
      timeoutMs: 10_000,
      what: 'the copy paid',
    });
    await h.fakes.broker.publish(paymentCreated, eventOf(record({ version: 1 })));
    await h.fakes.broker.publish(paymentConfirmed, eventOf(paid));
    // Handled after the late events (one queue, in order): a marker event of another payment.
    const marker = aPaymentRecord({ business_id: h.merchant.business_id, version: 1 });
    await h.fakes.broker.publish(paymentCreated, eventOf(marker));
    await waitFor(
      async () => {
        const { rows } = await query(`SELECT 1 FROM payment_copies WHERE payment_id = $1`, [
          marker.payment_id,
        ]);
        return rows.length > 0 ? true : undefined;
      },
      { timeoutMs: 10_000, what: 'the marker event applied' },
    );
    expect((await get()).body.status).toBe('paid');
    expect(asked()).toBe(before);
  });

  test("a store of the version the copy holds rewrites it only when it is later: then it renews the copy's age", async () => {
    await get();
    const copyRow = async () =>
      (
        await query(`SELECT xmin::text AS xmin, stored_at FROM payment_copies WHERE payment_id = $1`, [
          truth.payment.payment_id,
        ])
      ).rows[0] as { xmin: string; stored_at: Date };
    const stored = await copyRow();

    // The create's event, older than the answer the copy was made from, with or without the same instructions: the
    // row is not written again.
    const aMinuteAgo = new Date(Date.now() - 60_000).toISOString();
    const { manager } = h.gateway.runtime.dataSource;
    await storePaymentCopy(manager, truth.payment, null, aMinuteAgo);
    await storePaymentCopy(manager, truth.payment, pix, aMinuteAgo);
    expect(await copyRow()).toEqual(stored);

    // The same version known true later than the copy, by its event: its age starts again.
    await h.fakes.broker.publish(paymentChanged, { ...eventOf(truth.payment), pix });
    await waitFor(async () => ((await copyRow()).stored_at > stored.stored_at ? true : undefined), {
      timeoutMs: 10_000,
      what: 'the copy known true as of the later event',
    });
    const before = asked();
    expect((await get()).body.payment_id).toBe(truth.payment.payment_id);
    expect(asked()).toBe(before);
  });

  test('a change is read back from its answer; a change whose answer is lost is read from the payment service until its event comes', async () => {
    await get();
    h.fakes.on(updatePayment, async (command) => {
      truth = { payment: record({ metadata: command.metadata ?? null, version: 2 }), pix };
      return truth;
    });
    const changed = await h.http
      .patch(`/v1/payments/${truth.payment.payment_id}`)
      .set('x-api-key', h.merchant.api_key)
      .send({ metadata: '{"n":1}' });
    expect(changed.status).toBe(200);
    let before = asked();
    expect((await get()).body.metadata).toBeUndefined(); // metadata is not in the public record...
    expect(asked()).toBe(before); // ...but the read came from the copy, which holds version 2
    const { rows } = await query(`SELECT version FROM payment_copies WHERE payment_id = $1`, [
      truth.payment.payment_id,
    ]);
    expect(rows[0]?.version).toBe(2);

    // The next change commits at the payment service, but its answer never reaches the gateway.
    h.fakes.on(updatePayment, async (command) => {
      truth = {
        payment: record({ metadata: command.metadata ?? null, amount_centavos: 777, version: 3 }),
        pix,
      };
      throw new CommandError('SERVICE_UNAVAILABLE', 'a reply lost');
    });
    const lost = await h.http
      .patch(`/v1/payments/${truth.payment.payment_id}`)
      .set('x-api-key', h.merchant.api_key)
      .send({ amount: 777 });
    expect(lost.status).toBe(503);
    before = asked();
    expect((await get()).body.amount_brl).toBe(7.77);
    expect(asked()).toBe(before + 1);
    // Its event brings version 3 to the copy: reads are answered from it again.
    await h.fakes.broker.publish(paymentChanged, { ...eventOf(truth.payment), pix });
    await copyReaches(3, 'the change event applied');
    before = asked();
    expect((await get()).body.amount_brl).toBe(7.77);
    expect(asked()).toBe(before);
  });

  test('a refund in flight, an announced refund and a record without a version are read from the payment service', async () => {
    truth = { payment: record({ status: 'paid', version: 2 }) };
    await get();
    let before = asked();
    await get();
    expect(asked()).toBe(before);

    truth = { payment: record({ refund_reserved_centavos: 500, version: 3 }) };
    await h.fakes.broker.publish(refundSucceeded, {
      event_id: newPublicId('evt'),
      business_id: truth.payment.business_id,
      occurred_at: new Date().toISOString(),
      refund: {
        refund_id: newPublicId('ref'),
        payment_id: truth.payment.payment_id,
        business_id: truth.payment.business_id,
        method: 'pix',
        amount_centavos: 500,
        status: 'succeeded',
        reason: null,
        external_id: 'D0123',
        failure_reason: null,
        returned_funds_id: null,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      },
    });
    // Until the announcement is handled, the copy answers; after it, a read asks the payment service. (A read that
    // merely shows refunded 0 proves nothing: the copy said so too.)
    await waitFor(async () => ((await readAsking())?.body.refunded_amount_brl === 0 ? true : undefined), {
      timeoutMs: 10_000,
      what: 'a read after the announced refund asking the payment service',
    });
    // Reserved 500, refunded 0: a refund in flight, so every read asks.
    before = asked();
    await get();
    await get();
    expect(asked()).toBe(before + 2);
    truth = { payment: record({ refunded_centavos: 500, version: 4 }) };
    expect((await get()).body.refunded_amount_brl).toBe(5);
    before = asked();
    expect((await get()).body.refunded_amount_brl).toBe(5);
    expect(asked()).toBe(before);

    // A payment service of an earlier release sends no version: the copy is marked, reads ask.
    const unversioned = record({ version: 5 });
    delete unversioned.version;
    await h.fakes.broker.publish(paymentConfirmed, eventOf(unversioned));
    await waitFor(readAsking, { timeoutMs: 10_000, what: 'the unversioned event marking the copy' });
  });

  test("another business's payment is never answered from a copy", async () => {
    await get();
    const other = await h.newBusiness('Outra Loja');
    const response = await h.http
      .get(`/v1/payments/${truth.payment.payment_id}`)
      .set('x-api-key', other.api_key);
    expect({ status: response.status, code: response.body.error.code }).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  test('a copy known true longer ago than PAYMENT_COPY_MAX_AGE_MS is read again', async () => {
    await get();
    await query(`UPDATE payment_copies SET stored_at = now() - interval '31 seconds' WHERE payment_id = $1`, [
      truth.payment.payment_id,
    ]);
    const before = asked();
    await get();
    expect(asked()).toBe(before + 1);
    // An event that occurred long ago (delivered late) is stored as old as it is.
    await query(
      `UPDATE payment_copies SET stored_at = now() - interval '120 seconds' WHERE payment_id = $1`,
      [truth.payment.payment_id],
    );
    await h.fakes.broker.publish(
      paymentConfirmed,
      eventOf(record({ status: 'paid', version: 2 }), new Date(Date.now() - 60_000)),
    );
    await copyReaches(2, 'the late event applied');
    truth = { payment: record({ status: 'paid', version: 2 }) };
    const again = asked();
    await get();
    expect(asked()).toBe(again + 1);
  });

  /** Waits for the copy of `truth`'s payment to hold `version` (an event applied). */
  const copyReaches = (version: number, what: string) =>
    waitFor(
      async () => {
        const copy = await query(`SELECT version FROM payment_copies WHERE payment_id = $1`, [
          truth.payment.payment_id,
        ]);
        return copy.rows[0]?.version === version ? true : undefined;
      },
      { timeoutMs: 10_000, what },
    );

  const query = async (sql: string, parameters: unknown[]) => ({
    rows: (await h.gateway.runtime.dataSource.query(sql, parameters)) as Array<Record<string, any>>,
  });
});

describe('the event feed health', () => {
  test('open copies are answered only while events arrive within the lag and none failed lately', () => {
    const feed = new EventFeedHealth(1000, 30_000);
    expect(feed.keepingUp(0)).toBe(true);
    feed.applied(2500);
    expect(feed.keepingUp(1)).toBe(false);
    feed.applied(20);
    expect(feed.keepingUp(2)).toBe(true);
    feed.failed(10_000);
    expect(feed.keepingUp(20_000)).toBe(false);
    expect(feed.keepingUp(40_001)).toBe(true);
  });
});
