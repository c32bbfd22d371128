import { hasError, isDynamicPix, parsePix } from 'pix-utils';
import {
  createPayment,
  getPayment,
  newPublicId,
  setFeeRule,
  simulatePayment,
  updatePayment,
  type PaymentView,
} from '@gateway/contracts';
import { SANDBOX_PIX_KEY } from '@gateway/pix-adapter/src/config';
import { payAtPsp, waitFor, withoutPspCallbacks } from '@gateway/testkit';
import { readPayment, waitForPaymentStatus } from './support/harness';
import { paymentWithPixRailForTheseTests } from './support/real-pix-rail';

describe('PIX payments end to end (payment service + PIX adapter + PSP simulator)', () => {
  const bed = paymentWithPixRailForTheseTests('pix-e2e', { adapter: { EXPIRY_SWEEP_INTERVAL_MS: '200' } });

  async function newBusiness(): Promise<string> {
    const businessId = newPublicId('biz');
    const rule = { business_id: businessId, method: 'pix' as const, percent_bps: 199, fixed_centavos: 50 };
    const reply = await bed.request(setFeeRule, rule);
    expect(reply.ok).toBe(true);
    return businessId;
  }

  async function createPix(businessId: string, amount = 10000): Promise<PaymentView> {
    const reply = await bed.request(
      createPayment,
      {
        business_id: businessId,
        business_name: 'Padaria São João',
        method: 'pix',
        amount_centavos: amount,
        metadata: '{"pedido":1}',
        token: null,
      },
      { timeoutMs: 8000 },
    );
    if (!reply.ok) throw new Error(`create failed: ${JSON.stringify(reply.error)}`);
    return reply.result;
  }

  const read = (businessId: string, paymentId: string) => readPayment(bed, businessId, paymentId);
  const waitForStatus = (businessId: string, paymentId: string, status: string) =>
    waitForPaymentStatus(bed, businessId, paymentId, status);

  async function outboxCount(name: string, paymentId: string): Promise<number> {
    const rows = await bed.service.dataSource.query(
      `SELECT count(*)::int AS n FROM outbox WHERE name = $1 AND envelope->'payload'->'payment'->>'payment_id' = $2`,
      [name, paymentId],
    );
    return rows[0].n;
  }

  const simulate = (
    businessId: string,
    paymentId: string,
    outcome: 'paid' | 'failed' | 'expired',
    amount?: number,
  ) =>
    bed.request(
      simulatePayment,
      { business_id: businessId, payment_id: paymentId, outcome, amount_centavos: amount ?? null },
      { timeoutMs: 8000 },
    );

  const postCallback = (url: string, pix: unknown[]) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pix }),
    });

  test('a PIX payment is created processing, with a valid dynamic BR Code, its PNG QR and the fee', async () => {
    const businessId = await newBusiness();
    const view = await createPix(businessId, 10000);
    expect(view.payment).toMatchObject({
      payment_id: expect.stringMatching(/^pay_[A-Za-z0-9_-]{24,}$/),
      status: 'processing',
      amount_centavos: 10000,
      fee_centavos: 199 + 50,
      external_id: expect.stringMatching(/^[A-Za-z0-9]{26,35}$/),
      transaction_id: null,
    });
    const code = view.pix!.copia_e_cola;
    const parsed = parsePix(code);
    expect(hasError(parsed)).toBe(false);
    expect(!hasError(parsed) && isDynamicPix(parsed)).toBe(true);
    expect(code).toContain('br.gov.bcb.pix');
    expect(view.pix!.qr_code).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(view.pix!.qr_code.split(',')[1]!, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const expiresIn = Date.parse(view.pix!.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(3500_000);
    expect(expiresIn).toBeLessThanOrEqual(3600_000);
    await waitFor(async () => (await outboxCount('payment.created.v1', view.payment.payment_id)) === 1, {
      what: 'payment.created.v1 in the outbox',
    });
  });

  test('changing the amount revises the cob at the PSP and returns a new code, with the fee recomputed', async () => {
    const businessId = await newBusiness();
    const created = await createPix(businessId, 10000);
    const reply = await bed.request(
      updatePayment,
      { business_id: businessId, payment_id: created.payment.payment_id, amount_centavos: 15050 },
      { timeoutMs: 8000 },
    );
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    expect(reply.result.payment).toMatchObject({
      amount_centavos: 15050,
      fee_centavos: 299 + 50, // 15050 * 1.99% = 299.495, rounded half up to 299
      status: 'processing',
      metadata: '{"pedido":1}',
    });
    // The amount change moved the cob to a new location: the new code points at the revised charge.
    expect(reply.result.pix!.copia_e_cola).not.toBe(created.pix!.copia_e_cola);
    const code = parsePix(reply.result.pix!.copia_e_cola);
    if (hasError(code) || !isDynamicPix(code)) throw new Error('not a dynamic BR Code');
    // The location serves a JWS (its signature is the simulator's tests' concern): the payload is its middle part.
    const jws = await (await fetch(`http://${code.url}`)).text();
    const payload = JSON.parse(Buffer.from(jws.split('.')[1]!, 'base64url').toString('utf8'));
    expect(payload).toMatchObject({ revisao: 1, valor: { original: '150.50' } });
    const [charge] = await bed.adapter.dataSource.query(
      'SELECT revisao, amount_centavos::int AS amount FROM charges WHERE payment_id = $1',
      [created.payment.payment_id],
    );
    expect(charge).toEqual({ revisao: 1, amount: 15050 });
  });

  test('a simulated payment confirms it once, even when the PSP callback arrives again and concurrently', async () => {
    const businessId = await newBusiness();
    const created = await createPix(businessId, 12345);
    const paymentId = created.payment.payment_id;
    expect((await simulate(businessId, paymentId, 'paid')).ok).toBe(true);
    const paid = await waitForStatus(businessId, paymentId, 'paid');
    const [charge] = await bed.adapter.dataSource.query(
      'SELECT paid_end_to_end_id FROM charges WHERE payment_id = $1',
      [paymentId],
    );
    expect(paid.payment.transaction_id).toBe(charge.paid_end_to_end_id);
    expect(paid.payment.transaction_id).toMatch(/^E[A-Za-z0-9]{31}$/);

    const item = {
      endToEndId: paid.payment.transaction_id,
      txid: created.payment.external_id,
      valor: '123.45',
      horario: new Date().toISOString(),
    };
    const pixUrl = bed.adapter.callbackUrl.replace('/webhook?', '/webhook/pix?');
    const responses = await Promise.all([
      postCallback(bed.adapter.callbackUrl, [item]),
      postCallback(bed.adapter.callbackUrl, [item]),
      postCallback(pixUrl, [item]),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    const [{ n: duplicates }] = await bed.adapter.dataSource.query(
      `SELECT count(*)::int AS n FROM callbacks_received WHERE end_to_end_id = $1 AND outcome = 'duplicate'`,
      [item.endToEndId],
    );
    expect(duplicates).toBeGreaterThanOrEqual(3);
    // Each callback was recorded before it was answered, and a duplicate reports nothing: the adapter's one report of
    // this PIX, already handled (the payment is paid), is all the payment service ever gets.
    const reports = await bed.adapter.dataSource.query(
      `SELECT 1 FROM outbox WHERE name = 'pix.charge.paid.v1' AND envelope->'payload'->>'txid' = $1`,
      [item.txid],
    );
    expect(reports).toHaveLength(1);
    expect(await outboxCount('payment.confirmed.v1', paymentId)).toBe(1);
  });

  test('a callback for a PIX the PSP does not list, or for a partial amount, does not pay the payment', async () => {
    const businessId = await newBusiness();
    const created = await createPix(businessId, 10000);
    const paymentId = created.payment.payment_id;
    const forged = {
      endToEndId: `E99999999${'2'.repeat(12)}forgedabcde`,
      txid: created.payment.external_id,
      valor: '100.00',
      horario: new Date().toISOString(),
    };
    expect((await postCallback(bed.adapter.callbackUrl, [forged])).status).toBe(200);
    expect((await simulate(businessId, paymentId, 'paid', 4000)).ok).toBe(true);
    await waitFor(
      async () => {
        const rows = await bed.service.dataSource.query(
          `SELECT amount_centavos::int AS amount FROM received_funds WHERE payment_id = $1 AND kind = 'partial'`,
          [paymentId],
        );
        return rows[0]?.amount === 4000;
      },
      { what: 'the partial PIX recorded' },
    );
    const outcomes = await bed.adapter.dataSource.query(
      `SELECT outcome FROM callbacks_received WHERE txid = $1 ORDER BY id`,
      [created.payment.external_id],
    );
    expect(outcomes.map((row: { outcome: string }) => row.outcome)).toEqual(['unconfirmed', 'wrong_amount']);
    expect((await read(businessId, paymentId)).payment.status).toBe('processing');
  });

  test('a partial PIX and the window passing at once always end failed UNDERPAID with the partial once (many tries)', async () => {
    const businessId = await newBusiness();
    for (let round = 0; round < 4; round += 1) {
      const created = await Promise.all(Array.from({ length: 5 }, () => createPix(businessId, 10000)));
      // Odd rounds: the callback is lost, so the sweeper finds the PIX and reports it with the closure in one
      // transaction. Even rounds: the PSP's callback and the sweeper race. Either way both reach the payment service
      // at once.
      const restoreCallbacks =
        round % 2 === 1 ? await withoutPspCallbacks(bed.pspUrl, SANDBOX_PIX_KEY) : null;
      try {
        await Promise.all(
          created.map(async ({ payment }) => {
            expect((await simulate(businessId, payment.payment_id, 'paid', 4000)).ok).toBe(true);
            expect((await simulate(businessId, payment.payment_id, 'expired')).ok).toBe(true);
          }),
        );
      } finally {
        await restoreCallbacks?.();
      }
      for (const { payment } of created) {
        const failed = await waitForStatus(businessId, payment.payment_id, 'failed');
        expect(failed.payment.failure_code).toBe('UNDERPAID');
        const [charge] = await bed.adapter.dataSource.query(
          `SELECT end_to_end_id FROM callbacks_received WHERE txid = $1 AND outcome = 'wrong_amount'`,
          [payment.external_id],
        );
        // Every report of the PIX (callback and closure) handled by the payment service: it counted once.
        const reports: Array<{ message_id: string }> = await bed.adapter.dataSource.query(
          `SELECT message_id FROM outbox WHERE envelope->'payload'->>'payment_id' = $1`,
          [payment.payment_id],
        );
        expect(reports.length).toBeGreaterThanOrEqual(2);
        await waitFor(
          async () => {
            const handled: unknown[] = await bed.service.dataSource.query(
              'SELECT 1 FROM inbox WHERE message_id = ANY($1)',
              [reports.map((report) => report.message_id)],
            );
            return handled.length === reports.length;
          },
          { what: 'every PIX report handled' },
        );
        const funds = await bed.service.dataSource.query(
          `SELECT kind, rail_reference, amount_centavos::int AS amount FROM received_funds WHERE payment_id = $1`,
          [payment.payment_id],
        );
        expect(funds).toEqual([{ kind: 'partial', rail_reference: charge.end_to_end_id, amount: 4000 }]);
      }
    }
  });

  test('changing a paid payment is refused with INVALID_STATUS naming the status', async () => {
    const businessId = await newBusiness();
    const created = await createPix(businessId);
    await simulate(businessId, created.payment.payment_id, 'paid');
    await waitForStatus(businessId, created.payment.payment_id, 'paid');
    const reply = await bed.request(
      updatePayment,
      { business_id: businessId, payment_id: created.payment.payment_id, amount_centavos: 20000 },
      { timeoutMs: 8000 },
    );
    expect(reply).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: 'Operação não permitida: o pagamento está com status paid.' },
    });
  });

  test('when the window passes the payment expires and payment.expired.v1 is emitted', async () => {
    const businessId = await newBusiness();
    const created = await createPix(businessId);
    expect((await simulate(businessId, created.payment.payment_id, 'expired')).ok).toBe(true);
    await waitForStatus(businessId, created.payment.payment_id, 'expired');
    await waitFor(async () => (await outboxCount('payment.expired.v1', created.payment.payment_id)) === 1, {
      what: 'payment.expired.v1',
    });
  });

  test('a PIX paid after expiry is recorded as late funds on both sides and the payment stays expired', async () => {
    const businessId = await newBusiness();
    const created = await createPix(businessId, 5000);
    const paymentId = created.payment.payment_id;
    await simulate(businessId, paymentId, 'expired');
    await waitForStatus(businessId, paymentId, 'expired');
    expect((await payAtPsp(bed.pspUrl, created.payment.external_id!)).status).toBe(200);
    const late = await waitFor(
      async () => {
        const rows = await bed.service.dataSource.query(
          `SELECT amount_centavos::int AS amount, rail_reference FROM received_funds
            WHERE payment_id = $1 AND kind = 'late'`,
          [paymentId],
        );
        return rows[0];
      },
      { what: 'late funds recorded by the payment service' },
    );
    expect(late.amount).toBe(5000);
    const adapterLate = await bed.adapter.dataSource.query(
      'SELECT end_to_end_id, amount_centavos::int AS amount FROM late_payments WHERE payment_id = $1',
      [paymentId],
    );
    expect(adapterLate).toEqual([{ end_to_end_id: late.rail_reference, amount: 5000 }]);
    expect((await read(businessId, paymentId)).payment).toMatchObject({
      status: 'expired',
      transaction_id: null,
    });
  });

  test('when the PSP removes the charge the payment fails', async () => {
    const businessId = await newBusiness();
    const created = await createPix(businessId);
    expect((await simulate(businessId, created.payment.payment_id, 'failed')).ok).toBe(true);
    const failed = await waitForStatus(businessId, created.payment.payment_id, 'failed');
    expect(failed.payment.failure_code).toBe('RAIL_FAILED');
    expect(await outboxCount('payment.failed.v1', created.payment.payment_id)).toBe(1);
  });

  test("another business's payment is NOT_FOUND", async () => {
    const businessId = await newBusiness();
    const created = await createPix(businessId);
    const reply = await bed.request(getPayment, {
      business_id: newPublicId('biz'),
      payment_id: created.payment.payment_id,
    });
    expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
  });

  // Last: it takes the PSP down for good.
  test('when the PSP is down, create answers SERVICE_UNAVAILABLE and leaves no payment behind', async () => {
    const businessId = await newBusiness();
    await bed.stopPsp();
    const reply = await bed.request(
      createPayment,
      {
        business_id: businessId,
        business_name: 'Padaria',
        method: 'pix',
        amount_centavos: 1000,
        metadata: null,
        token: null,
      },
      { timeoutMs: 8000 },
    );
    expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) });
    const rows = await bed.service.dataSource.query('SELECT id FROM payments WHERE business_id = $1', [
      businessId,
    ]);
    expect(rows).toEqual([]);
  });
});
