import {
  assignReceivedFunds,
  cancelPayment,
  createRefund,
  cryptoRefundSettled,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  listReceivedFunds,
  newPublicId,
  pixChargeClosed,
  pixChargePaid,
  returnReceivedFunds,
  type FundsAssigned,
  type FundsReceived,
  type FundsReturned,
  type ReceivedFundsItem,
} from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import {
  aCryptoRequestSettled,
  aCryptoTransferUnapplied,
  aPixChargeClosed,
  aPixChargePaid,
  aRefundSettlement,
} from './support/rail-events';

// The books learn of money that belongs to no payment yet from the payment service's outbox, in the transaction that
// recorded it: `payment.funds.received.v1` once per record, whatever path the money came by and however often the
// rail reports it; `payment.funds.returned.v1` when it goes back; `payment.funds.assigned.v1` when the operator
// assigns it. Assigned money is never returned afterwards (the database refuses it).
describe('received funds tell the books: in, returned, assigned', () => {
  const h = paymentServiceForTheseTests('payment-funds-books');

  const outboxOf = async <P>(name: string, field: string, value: string): Promise<P[]> => {
    const rows: Array<{ payload: P }> = await h.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox WHERE name = $1 AND envelope->'payload'->>$2 = $3
        ORDER BY seq`,
      [name, field, value],
    );
    return rows.map((row) => row.payload);
  };
  const receivedEvents = (paymentId: string) =>
    outboxOf<FundsReceived>('payment.funds.received.v1', 'payment_id', paymentId);
  const returnedEvents = (fundsId: string) =>
    outboxOf<FundsReturned>('payment.funds.returned.v1', 'funds_id', fundsId);
  const assignedEvents = (fundsId: string) =>
    outboxOf<FundsAssigned>('payment.funds.assigned.v1', 'funds_id', fundsId);

  const fundsOf = async (businessId: string, paymentId: string): Promise<ReceivedFundsItem[]> => {
    const reply = await h.request(listReceivedFunds, { business_id: businessId, payment_id: paymentId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result.data;
  };
  const publishAndWait = async <P>(definition: Parameters<typeof h.publishEvent<P>>[0], payload: P) =>
    h.waitForHandled([await h.publishEvent(definition, payload)]);

  /** A new business's open USDC payment of R$ 80. */
  const anOpenUsdcPayment = async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, {
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 8_000,
    });
    return { businessId, view, paymentId: view.payment.payment_id };
  };

  test('late PIX after expiry: one event with the amount and the business, however often the PSP reports it', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { amount_centavos: 5_000 });
    const paymentId = view.payment.payment_id;
    await publishAndWait(pixChargeClosed, aPixChargeClosed(view.payment));
    await h.waitForPaymentStatus(businessId, paymentId, 'expired');

    const late = aPixChargePaid(view.payment);
    await publishAndWait(pixChargePaid, late);
    await publishAndWait(pixChargePaid, late);

    const [funds] = await fundsOf(businessId, paymentId);
    expect(await receivedEvents(paymentId)).toEqual([
      {
        event_id: expect.stringMatching(/^evt_/),
        occurred_at: funds!.detected_at,
        funds_id: funds!.funds_id,
        money_key: `funds:${funds!.funds_id}`,
        kind: 'late',
        rail: 'pix',
        payment_id: paymentId,
        business_id: businessId,
        amount_centavos: 5_000,
        amount_base_units: null,
        token: null,
        // The Pix's endToEndId: what reconciliation finds the money under at the PSP.
        rail_reference: late.end_to_end_id,
      },
    ]);
  });

  test('excess of an overpaid PIX: one event of the excess alone', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { amount_centavos: 5_000 });
    const paymentId = view.payment.payment_id;

    const overpaid = aPixChargePaid(view.payment, { amount_centavos: 5_750 });
    await publishAndWait(pixChargePaid, overpaid);
    await h.waitForPaymentStatus(businessId, paymentId, 'paid');

    expect(await receivedEvents(paymentId)).toEqual([
      expect.objectContaining({
        kind: 'excess',
        amount_centavos: 750,
        business_id: businessId,
        rail_reference: overpaid.end_to_end_id,
      }),
    ]);
  });

  test('cancelled, then paid: the money is late funds, announced once', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { amount_centavos: 3_300 });
    const paymentId = view.payment.payment_id;
    const cancelled = await h.request(cancelPayment, { business_id: businessId, payment_id: paymentId });
    expect(cancelled.ok).toBe(true);

    const paid = aPixChargePaid(view.payment);
    await publishAndWait(pixChargePaid, paid);
    await publishAndWait(pixChargePaid, paid);

    expect((await h.readPayment(businessId, paymentId)).payment.status).toBe('cancelled');
    expect(await receivedEvents(paymentId)).toEqual([
      expect.objectContaining({ kind: 'late', rail: 'pix', amount_centavos: 3_300, business_id: businessId }),
    ]);
  });

  /** The watcher's quote when tokens arrived: one token for R$ 40,00, half what the fake watcher locked at creation. */
  const arrivalQuote = (quotedAt = new Date()) => ({
    token: 'usdc' as const,
    token_per_brl: '1/40',
    quoted_at: quotedAt.toISOString(),
  });

  test('crypto outside its window is valued at the quote of its arrival, never the payment’s locked quote; an unreadable transaction only once read', async () => {
    const businessId = await h.newBusiness();
    // Priced at 1 000 000 base units (the fake watcher's quote) for R$ 80,00: the quote it locked, R$ 80,00 a token.
    const view = await h.createPayment(businessId, {
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 8_000,
    });
    const paymentId = view.payment.payment_id;

    const ambiguous = aCryptoTransferUnapplied(view.payment, {
      reason: 'ambiguous',
      instruction: '2',
      amount_base_units: '2500001',
      quote: arrivalQuote(),
    });
    await publishAndWait(cryptoTransferUnapplied, ambiguous);
    await publishAndWait(cryptoTransferUnapplied, ambiguous);
    const signature = newPublicId('sig').replace(/[^A-Za-z0-9]/g, '');
    await publishAndWait(
      cryptoTransferUnapplied,
      aCryptoTransferUnapplied(view.payment, { signature, reason: 'unreadable', amount_base_units: null }),
    );
    expect(await receivedEvents(paymentId)).toHaveLength(1);
    // Read at last: late money, announced as what it turned out to be.
    await publishAndWait(
      cryptoTransferUnapplied,
      aCryptoTransferUnapplied(view.payment, {
        signature,
        reason: 'after_expiry',
        amount_base_units: '500000',
        quote: arrivalQuote(),
      }),
    );

    expect(await receivedEvents(paymentId)).toEqual([
      expect.objectContaining({
        kind: 'unmatched',
        rail: 'crypto',
        money_key: `crypto:${ambiguous.signature}:2`,
        business_id: businessId,
        // 2.500001 tokens at R$ 40,00 a token: R$ 100,00004, rounded down (R$ 200,00 at the locked quote).
        amount_centavos: 10_000,
        amount_base_units: '2500001',
        token: 'usdc',
        rail_reference: ambiguous.signature,
      }),
      expect.objectContaining({ kind: 'late', amount_centavos: 2_000, amount_base_units: '500000' }),
    ]);
    // The record keeps the quote that valued it, and shows it with the value.
    expect(await fundsOf(businessId, paymentId)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          instruction: '2',
          valued_centavos: 10_000,
          quote: { token: 'usdc', token_per_brl: '1/40', quoted_at: ambiguous.quote!.quoted_at },
        }),
      ]),
    );
  });

  test('late tokens on an old payment whose locked quote is higher, returned by hand: the arrival value, less the fee', async () => {
    const { businessId, view, paymentId } = await anOpenUsdcPayment();
    await publishAndWait(
      cryptoTransferUnapplied,
      aCryptoTransferUnapplied(view.payment, {
        reason: 'after_expiry',
        amount_base_units: '1000000',
        quote: arrivalQuote(),
      }),
    );
    const [late] = await fundsOf(businessId, paymentId);
    expect(late).toMatchObject({
      valued_centavos: 4_000,
      quote: expect.objectContaining({ token_per_brl: '1/40' }),
    });

    const returned = await h.request(returnReceivedFunds, {
      business_id: businessId,
      payment_id: paymentId,
      funds_id: late!.funds_id,
    });
    expect(returned).toMatchObject({ ok: true, result: { status: 'returned', valued_centavos: 4_000 } });
    expect(await receivedEvents(paymentId)).toEqual([expect.objectContaining({ amount_centavos: 4_000 })]);
    // The business's crypto fee rule (1.5 % + R$ 0,10) on R$ 40,00, as on a payment of it.
    expect(await returnedEvents(late!.funds_id)).toEqual([
      expect.objectContaining({ returned_by: 'manual', business_id: businessId, fee_centavos: 70 }),
    ]);
    // The database keeps the quote that valued it as it was, and never a quote without a value.
    const sql = (text: string) => h.service.dataSource.query(text, [late!.funds_id]);
    await expect(
      sql(`UPDATE received_funds SET quote_token_per_brl = '1/80' WHERE funds_id = $1`),
    ).rejects.toThrow(/the quote that valued .* is kept as it was/);
    await expect(
      sql(
        `UPDATE received_funds SET quote_token = NULL, quote_token_per_brl = NULL, quoted_at = NULL WHERE funds_id = $1`,
      ),
    ).rejects.toThrow(/the quote that valued .* is kept as it was/);
  });

  test.each([
    ['no fresh quote could be had', { quote: null }],
    ['an event written before quotes were sent', {}],
  ])(
    'tokens outside their window with no arrival quote (%s) are not valued, never at the locked quote',
    async (_, quote) => {
      const businessId = await h.newBusiness();
      const view = await h.createPayment(businessId, {
        method: 'crypto',
        token: 'usdc',
        amount_centavos: 8_000,
      });
      const paymentId = view.payment.payment_id;
      await publishAndWait(
        cryptoTransferUnapplied,
        aCryptoTransferUnapplied(view.payment, {
          reason: 'after_expiry',
          amount_base_units: '1000000',
          ...quote,
        }),
      );

      const [event] = await receivedEvents(paymentId);
      expect(event).toMatchObject({ amount_centavos: null, amount_base_units: '1000000', token: 'usdc' });
      const [late] = await fundsOf(businessId, paymentId);
      expect(late).toMatchObject({ valued_centavos: null, quote: null });
      // Nor can a quote be written beside no value.
      await expect(
        h.service.dataSource.query(
          `UPDATE received_funds SET quote_token = 'usdc', quote_token_per_brl = '1/40', quoted_at = now()
            WHERE funds_id = $1`,
          [late!.funds_id],
        ),
      ).rejects.toThrow(/received_funds_quote_valued/);
      expect(await h.request(assignReceivedFunds, { funds_id: late!.funds_id })).toMatchObject({
        ok: false,
        error: { code: 'INVALID_STATUS', message: expect.stringContaining('não é conhecido') },
      });
      // Nor recorded returned by hand: the business would be credited nothing and the money leave the operator's
      // reach; it stays held, for the operator to send back.
      expect(
        await h.request(returnReceivedFunds, {
          business_id: businessId,
          payment_id: paymentId,
          funds_id: late!.funds_id,
        }),
      ).toMatchObject({
        ok: false,
        error: { code: 'INVALID_STATUS', message: expect.stringContaining('não é conhecido') },
      });
      expect((await fundsOf(businessId, paymentId))[0]).toMatchObject({ status: 'held', returned_by: null });
    },
  );

  test('a transfer in another token with the quote of its own token is valued in that token, never at the payment quote', async () => {
    const { view, paymentId } = await anOpenUsdcPayment();
    await publishAndWait(
      cryptoTransferUnapplied,
      aCryptoTransferUnapplied(view.payment, {
        reason: 'wrong_mint',
        instruction: '1',
        amount_base_units: '3000000',
        // One EURC for R$ 6,25.
        quote: { token: 'eurc', token_per_brl: '16/100', quoted_at: new Date().toISOString() },
      }),
    );
    expect(await receivedEvents(paymentId)).toEqual([
      expect.objectContaining({
        kind: 'unmatched',
        amount_centavos: 1_875,
        amount_base_units: '3000000',
        token: 'eurc',
      }),
    ]);
  });

  test('a transfer in another token is announced without a value (nothing booked) and cannot be assigned', async () => {
    const { businessId, view, paymentId } = await anOpenUsdcPayment();
    await publishAndWait(
      cryptoTransferUnapplied,
      aCryptoTransferUnapplied(view.payment, {
        reason: 'wrong_mint',
        instruction: '1',
        amount_base_units: '3000000',
      }),
    );
    const [event] = await receivedEvents(paymentId);
    expect(event).toMatchObject({
      kind: 'unmatched',
      business_id: businessId,
      amount_centavos: null,
      amount_base_units: '3000000',
      token: null,
    });
    expect(await h.request(assignReceivedFunds, { funds_id: event!.funds_id })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('não é conhecido') },
    });
  });

  test('returned by hand: one returned event, and no assignment afterwards', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { amount_centavos: 2_000 });
    const paymentId = view.payment.payment_id;
    await publishAndWait(pixChargePaid, aPixChargePaid(view.payment, { amount_centavos: 2_500 }));
    const [excess] = await waitFor(async () => {
      const funds = await fundsOf(businessId, paymentId);
      return funds.length > 0 ? funds : undefined;
    });

    const returned = await h.request(returnReceivedFunds, {
      business_id: businessId,
      payment_id: paymentId,
      funds_id: excess!.funds_id,
    });
    expect(returned).toMatchObject({ ok: true, result: { status: 'returned', returned_by: 'manual' } });

    expect(await returnedEvents(excess!.funds_id)).toEqual([
      expect.objectContaining({
        money_key: `funds:${excess!.funds_id}`,
        payment_id: paymentId,
        business_id: businessId,
        returned_by: 'manual',
        rail_reference: null,
        // The business's PIX fee rule (1.5 % + R$ 0,10) on the R$ 5,00 credited, as on a payment of it.
        fee_centavos: 18,
      }),
    ]);
    expect(await h.request(assignReceivedFunds, { funds_id: excess!.funds_id })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('devolvidos manualmente') },
    });
    expect(await assignedEvents(excess!.funds_id)).toEqual([]);
  });

  test('the excess a succeeded refund carried: one returned event naming the refund', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, {
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 10_000,
    });
    const paymentId = view.payment.payment_id;
    await publishAndWait(
      cryptoRequestSettled,
      aCryptoRequestSettled(view.payment, { received_base_units: '1250000', excess_base_units: '250000' }),
    );
    await h.waitForPaymentStatus(businessId, paymentId, 'paid');
    expect(await receivedEvents(paymentId)).toEqual([
      expect.objectContaining({ kind: 'excess', amount_centavos: 2_500, amount_base_units: '250000' }),
    ]);
    const refund = await h.request(createRefund, { business_id: businessId, payment_id: paymentId });
    if (!refund.ok) throw new Error(JSON.stringify(refund.error));
    const fundsId = refund.result.returned_funds_id!;
    expect(fundsId).toMatch(/^fund_/);
    // Not returned until the refund succeeded.
    expect(await returnedEvents(fundsId)).toEqual([]);

    const settled = aRefundSettlement(refund.result);
    await publishAndWait(cryptoRefundSettled, settled);
    await publishAndWait(cryptoRefundSettled, settled);

    expect(await returnedEvents(fundsId)).toEqual([
      expect.objectContaining({
        returned_by: refund.result.refund_id,
        business_id: businessId,
        // The refund's transfer at the rail: the money left under it.
        rail_reference: settled.external_id,
      }),
    ]);
  });

  test('assigned by the operator: one assigned event; never returned or assigned again afterwards', async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { amount_centavos: 4_000 });
    const paymentId = view.payment.payment_id;
    await publishAndWait(pixChargeClosed, aPixChargeClosed(view.payment));
    await publishAndWait(pixChargePaid, aPixChargePaid(view.payment));
    const [late] = await waitFor(async () => {
      const funds = await fundsOf(businessId, paymentId);
      return funds.length > 0 ? funds : undefined;
    });
    const otherBusiness = await h.newBusiness();
    const other = (await h.createPayment(otherBusiness)).payment.payment_id;

    const messageId = newPublicId('msg');
    const assigned = await h.request(
      assignReceivedFunds,
      { funds_id: late!.funds_id, payment_id: other },
      { messageId },
    );
    const again = await h.request(
      assignReceivedFunds,
      { funds_id: late!.funds_id, payment_id: other },
      { messageId },
    );

    expect(assigned).toMatchObject({
      ok: true,
      result: {
        funds_id: late!.funds_id,
        status: 'assigned',
        payment_id: paymentId,
        business_id: businessId,
        assigned_payment_id: other,
      },
    });
    expect(again).toEqual(assigned);
    expect(await assignedEvents(late!.funds_id)).toEqual([
      expect.objectContaining({
        money_key: `funds:${late!.funds_id}`,
        payment_id: other,
        business_id: otherBusiness,
        // The target business's PIX fee rule (1.5 % + R$ 0,10) on the R$ 40,00 credited.
        fee_centavos: 70,
      }),
    ]);
    expect((await fundsOf(businessId, paymentId))[0]).toMatchObject({ status: 'assigned' });
    expect(await h.request(assignReceivedFunds, { funds_id: late!.funds_id })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS' },
    });
    expect(
      await h.request(returnReceivedFunds, {
        business_id: businessId,
        payment_id: paymentId,
        funds_id: late!.funds_id,
      }),
    ).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining(other) },
    });
    // The database refuses it whatever code path writes.
    await expect(
      h.service.dataSource.query(
        `UPDATE received_funds SET returned_by = 'manual', returned_at = now() WHERE funds_id = $1`,
        [late!.funds_id],
      ),
    ).rejects.toThrow(/received_funds_assigned_or_returned/);
    await expect(
      h.service.dataSource.query(`UPDATE received_funds SET assigned_payment_id = $2 WHERE funds_id = $1`, [
        late!.funds_id,
        paymentId,
      ]),
    ).rejects.toThrow(/assigned already/);
    expect(await returnedEvents(late!.funds_id)).toEqual([]);
  });

  test('assign refusals: unknown funds or payment NOT_FOUND, money naming an unknown payment needs one', async () => {
    expect(await h.request(assignReceivedFunds, { funds_id: newPublicId('fund') })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    // Money naming a payment the gateway does not know: unmatched, of no business.
    const stranger = { payment_id: newPublicId('pay'), external_id: 'reference', amount_centavos: 1_000 };
    await publishAndWait(pixChargePaid, aPixChargePaid(stranger, { amount_centavos: 1_000 }));
    const [record] = await h.service.dataSource.query(
      `SELECT funds_id, kind FROM received_funds WHERE payment_id = $1`,
      [stranger.payment_id],
    );
    expect(record).toEqual({ funds_id: expect.any(String), kind: 'unmatched' });
    expect(await receivedEvents(stranger.payment_id)).toEqual([
      expect.objectContaining({ kind: 'unmatched', business_id: null, amount_centavos: 1_000 }),
    ]);
    expect(await h.request(assignReceivedFunds, { funds_id: record.funds_id })).toMatchObject({
      ok: false,
      error: { code: 'MISSING_FIELDS', message: expect.stringContaining('payment_id') },
    });
    expect(
      await h.request(assignReceivedFunds, { funds_id: record.funds_id, payment_id: newPublicId('pay') }),
    ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });

    const businessId = await h.newBusiness();
    const target = (await h.createPayment(businessId)).payment.payment_id;
    expect(
      await h.request(assignReceivedFunds, { funds_id: record.funds_id, payment_id: target }),
    ).toMatchObject({
      ok: true,
      result: { status: 'assigned', business_id: null, assigned_payment_id: target },
    });
  });
  test('a poison assign is parked and assigns nothing', async () => {
    const { parked } = await h.publishPoisoned(
      'commands',
      assignReceivedFunds,
      { funds_id: newPublicId('fund') },
      { funds_id: 42 },
    );
    expect(parked).toEqual([expect.objectContaining({ type: assignReceivedFunds.name })]);
  });
});
