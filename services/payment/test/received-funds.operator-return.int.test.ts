import {
  assignReceivedFunds,
  createRefund,
  cryptoFundsReturnSettled,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  listAllReceivedFunds,
  newPublicId,
  pixChargePaid,
  pixFundsReturnSettled,
  listReceivedFunds,
  returnHeldFunds,
  returnReceivedFunds,
  type FundsReturnRequested,
  type FundsReturned,
  type OperatorReceivedFundsItem,
  type ReceivedFundsItem,
  type RefundRequested,
} from '@gateway/contracts';
import { poisonCase, untilAnsweredOk, waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import { aCryptoRequestSettled, aCryptoTransferUnapplied, aPixChargePaid } from './support/rail-events';

// The operator sends held funds back to their payer through the rail: returning at once, with one request to the
// rail; returned (and the books told) when the rail confirms, held again with the reason when it fails. It takes the
// money like an assignment, a return by hand or a refund carrying the excess: exactly one of them wins.
describe("the operator's return of held funds through the rail", () => {
  const h = paymentServiceForTheseTests('payment-operator-return');

  /** A crypto payment of R$ 100 priced at 1 000 000 base units, paid with 1 250 000: 250 000 kept as excess. */
  const overpaid = async (businessId: string) => {
    const view = await h.createPayment(businessId, {
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 10_000,
    });
    const paymentId = view.payment.payment_id;
    const settled = aCryptoRequestSettled(view.payment, {
      received_base_units: '1250000',
      excess_base_units: '250000',
    });
    await h.client.publish(cryptoRequestSettled, settled);
    const [excess] = await waitFor(async () => {
      const funds = await fundsOf(businessId, paymentId);
      return funds.length > 0 ? funds : undefined;
    });
    await h.waitForPaymentStatus(businessId, paymentId, 'paid');
    return { paymentId, excess: excess!, signature: settled.signature };
  };

  const fundsOf = async (businessId: string, paymentId: string): Promise<ReceivedFundsItem[]> => {
    const reply = await h.request(listReceivedFunds, { business_id: businessId, payment_id: paymentId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result.data;
  };

  const outboxOf = async <P>(name: string, field: string, value: string): Promise<P[]> => {
    const rows: Array<{ payload: P }> = await h.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox WHERE name = $1 AND envelope->'payload'->>$2 = $3
        ORDER BY seq`,
      [name, field, value],
    );
    return rows.map((row) => row.payload);
  };
  const returnRequests = (fundsId: string) =>
    outboxOf<FundsReturnRequested>('crypto.funds-return.requested.v1', 'funds_id', fundsId);
  const returnedEvents = (fundsId: string) =>
    outboxOf<FundsReturned>('payment.funds.returned.v1', 'funds_id', fundsId);

  const sendBack = (fundsId: string, reason: string | null = null) =>
    h.request(returnHeldFunds, { funds_id: fundsId, reason });

  const settleReturn = async (
    request: FundsReturnRequested,
    outcome: 'succeeded' | 'failed',
    externalId: string | null,
  ) => {
    await h.waitForHandled([
      await h.publishEvent(cryptoFundsReturnSettled, {
        return_id: request.return_id,
        funds_id: request.funds_id,
        outcome,
        external_id: externalId,
        failure_reason: outcome === 'failed' ? 'A transação falhou na rede: {"InstructionError":[1]}' : null,
      }),
    ]);
  };

  test('returning at once with one request to the rail, even asked twice; returned with the rail id once confirmed, the books told once', async () => {
    const businessId = await h.newBusiness();
    const { paymentId, excess, signature } = await overpaid(businessId);

    const [first, second] = await Promise.all([sendBack(excess.funds_id), sendBack(excess.funds_id)]);
    for (const reply of [first, second])
      expect(reply).toMatchObject({
        ok: true,
        result: {
          funds_id: excess.funds_id,
          status: 'returning',
          returned_by: 'operator',
          business_id: businessId,
        },
      });
    const requests = await returnRequests(excess.funds_id);
    expect(requests).toEqual([
      {
        return_id: expect.any(String),
        funds_id: excess.funds_id,
        payment_id: paymentId,
        rail_reference: signature,
        instruction: null,
        amount_centavos: null,
        amount_base_units: '250000',
        reason: null,
      },
    ]);
    // Nothing has left the platform yet: the books hear of it when the rail confirms.
    expect(await returnedEvents(excess.funds_id)).toEqual([]);

    await settleReturn(requests[0]!, 'succeeded', 'sig-of-the-return');
    await settleReturn(requests[0]!, 'succeeded', 'sig-of-the-return');
    expect(await fundsOf(businessId, paymentId)).toEqual([
      expect.objectContaining({
        status: 'returned',
        returned_by: 'operator',
        returned_at: expect.any(String),
      }),
    ]);
    expect(await returnedEvents(excess.funds_id)).toEqual([
      expect.objectContaining({
        returned_by: 'operator',
        rail_reference: 'sig-of-the-return',
        payment_id: paymentId,
      }),
    ]);
    expect(await sendBack(excess.funds_id)).toMatchObject({
      ok: true,
      result: { status: 'returned', return_reference: 'sig-of-the-return' },
    });
    expect(await returnRequests(excess.funds_id)).toHaveLength(1);
  });

  test('a return the rail failed leaves the funds held with the reason; returned again later as a new attempt', async () => {
    const businessId = await h.newBusiness();
    const { paymentId, excess } = await overpaid(businessId);
    expect(await sendBack(excess.funds_id, 'simulate:fail')).toMatchObject({ ok: true });
    const [failing] = await returnRequests(excess.funds_id);
    expect(failing).toMatchObject({ reason: 'simulate:fail' });
    await settleReturn(failing!, 'failed', null);

    const [held] = await fundsOf(businessId, paymentId);
    expect(held).toMatchObject({ status: 'held', returned_by: null, returned_at: null });
    expect(await returnedEvents(excess.funds_id)).toEqual([]);

    const again = await sendBack(excess.funds_id);
    expect(again).toMatchObject({ ok: true, result: { status: 'returning', return_failure_reason: null } });
    const requests = await returnRequests(excess.funds_id);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.return_id).not.toBe(failing!.return_id);
    // The failed attempt's late word changes nothing.
    await settleReturn(failing!, 'succeeded', 'too-late');
    expect((await fundsOf(businessId, paymentId))[0]).toMatchObject({ status: 'returning' });
    await settleReturn(requests[1]!, 'succeeded', 'sig-second');
    expect((await fundsOf(businessId, paymentId))[0]).toMatchObject({
      status: 'returned',
      returned_by: 'operator',
    });
  });

  test('the failure reason is shown to the operator while the funds are held', async () => {
    const businessId = await h.newBusiness();
    const { excess } = await overpaid(businessId);
    await sendBack(excess.funds_id);
    await settleReturn((await returnRequests(excess.funds_id))[0]!, 'failed', null);
    const listed = await h.request(listAllReceivedFunds, { status: 'held', limit: 100 });
    if (!listed.ok) throw new Error(JSON.stringify(listed.error));
    expect(listed.result.data.find((item) => item.funds_id === excess.funds_id)).toMatchObject({
      status: 'held',
      return_failure_reason: expect.stringContaining('A transação falhou na rede'),
      return_reference: null,
    });
  });

  test('funds assigned, returned by hand or carried by a refund are refused; so is a return by hand or an assignment of funds the operator is returning', async () => {
    const businessId = await h.newBusiness();
    const assigned = await overpaid(businessId);
    expect(await h.request(assignReceivedFunds, { funds_id: assigned.excess.funds_id })).toMatchObject({
      ok: true,
    });
    expect(await sendBack(assigned.excess.funds_id)).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('atribuídos') },
    });

    const byHand = await overpaid(businessId);
    await h.request(returnReceivedFunds, {
      business_id: businessId,
      payment_id: byHand.paymentId,
      funds_id: byHand.excess.funds_id,
    });
    expect(await sendBack(byHand.excess.funds_id)).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('manualmente') },
    });

    const refunded = await overpaid(businessId);
    const refund = await h.request(createRefund, {
      business_id: businessId,
      payment_id: refunded.paymentId,
      amount_centavos: null,
    });
    expect(refund).toMatchObject({ ok: true, result: { returned_funds_id: refunded.excess.funds_id } });
    expect(await sendBack(refunded.excess.funds_id)).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('reembolso') },
    });

    const returning = await overpaid(businessId);
    await sendBack(returning.excess.funds_id);
    expect(await h.request(assignReceivedFunds, { funds_id: returning.excess.funds_id })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('operador') },
    });
    expect(
      await h.request(returnReceivedFunds, {
        business_id: businessId,
        payment_id: returning.paymentId,
        funds_id: returning.excess.funds_id,
      }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
    expect(await sendBack('fund_thisfundsidisnotknownhere')).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });

  test('the database refuses an operator return without an attempt id, and undoing or redoing one once returned', async () => {
    const businessId = await h.newBusiness();
    const { excess } = await overpaid(businessId);
    const query = (sql: string) => h.service.dataSource.query(sql, [excess.funds_id]);
    const refused = { code: '23514' };
    await expect(
      query(`UPDATE received_funds SET returned_by = 'operator' WHERE funds_id = $1`),
    ).rejects.toMatchObject(refused);
    await sendBack(excess.funds_id);
    await settleReturn((await returnRequests(excess.funds_id))[0]!, 'succeeded', 'sig');
    await expect(
      query(`UPDATE received_funds SET returned_by = NULL, returned_at = NULL, return_reference = NULL
              WHERE funds_id = $1`),
    ).rejects.toMatchObject(refused);
    await expect(
      query(`UPDATE received_funds SET returned_by = 'manual' WHERE funds_id = $1`),
    ).rejects.toMatchObject(refused);
  });

  test('one instruction naming two payments is returned once, through either record; unreadable funds are refused', async () => {
    const businessId = await h.newBusiness();
    const first = await h.createPayment(businessId, {
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 8_000,
    });
    const second = await h.createPayment(businessId, {
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 9_000,
    });
    const transfer = { reason: 'ambiguous' as const, instruction: '2', amount_base_units: '700000' };
    const ambiguous = aCryptoTransferUnapplied(first.payment, transfer);
    for (const { payment } of [first, second])
      await h.client.publish(
        cryptoTransferUnapplied,
        aCryptoTransferUnapplied(payment, { ...transfer, signature: ambiguous.signature }),
      );
    const [one, two] = await Promise.all(
      [first, second].map(({ payment }) =>
        waitFor(async () => (await fundsOf(businessId, payment.payment_id))[0]),
      ),
    );
    // Asked through both records at once: one return on the rail; the other record is answered as it stands, the
    // same money returning.
    const [a, b] = await Promise.all([sendBack(one!.funds_id), sendBack(two!.funds_id)]);
    for (const reply of [a, b])
      expect(reply).toMatchObject({ ok: true, result: { status: 'returning', returned_by: 'operator' } });
    const requests = [...(await returnRequests(one!.funds_id)), ...(await returnRequests(two!.funds_id))];
    expect(requests).toEqual([
      expect.objectContaining({
        rail_reference: ambiguous.signature,
        instruction: '2',
        amount_base_units: '700000',
      }),
    ]);
    await settleReturn(requests[0]!, 'succeeded', 'sig-of-the-shared-return');
    // Every record of the money shows it returned; asked again through either, nothing more goes to the rail, and
    // the books are told once.
    for (const { payment } of [first, second])
      expect(await fundsOf(businessId, payment.payment_id)).toEqual([
        expect.objectContaining({ status: 'returned', returned_by: 'operator' }),
      ]);
    for (const funds of [one!, two!])
      expect(await sendBack(funds.funds_id)).toMatchObject({
        ok: true,
        result: { status: 'returned', returned_by: 'operator', return_reference: 'sig-of-the-shared-return' },
      });
    expect([...(await returnRequests(one!.funds_id)), ...(await returnRequests(two!.funds_id))]).toHaveLength(
      1,
    );
    expect([...(await returnedEvents(one!.funds_id)), ...(await returnedEvents(two!.funds_id))]).toEqual([
      expect.objectContaining({ money_key: `crypto:${ambiguous.signature}:2`, returned_by: 'operator' }),
    ]);

    const unreadable = aCryptoTransferUnapplied(first.payment, {
      reason: 'unreadable',
      amount_base_units: null,
    });
    await h.client.publish(cryptoTransferUnapplied, unreadable);
    const unknown = await waitFor(async () =>
      (await fundsOf(businessId, first.payment.payment_id)).find((funds) => funds.kind === 'unreadable'),
    );
    expect(await sendBack(unknown.funds_id)).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('não é conhecido') },
    });
  });

  test('an operator return, a full refund carrying the excess, a return by hand and an assignment racing: exactly one takes the money, 25 times', async () => {
    const businessId = await h.newBusiness();
    const wins = { operator: 0, refund: 0, byHand: 0, assigned: 0 };
    for (let attempt = 0; attempt < 25; attempt += 1) {
      const { paymentId, excess } = await overpaid(businessId);
      const [operator, refunded, byHand, assigned] = await Promise.all([
        sendBack(excess.funds_id),
        h.request(createRefund, { business_id: businessId, payment_id: paymentId, amount_centavos: null }),
        h.request(returnReceivedFunds, {
          business_id: businessId,
          payment_id: paymentId,
          funds_id: excess.funds_id,
        }),
        h.request(assignReceivedFunds, { funds_id: excess.funds_id }),
      ]);
      if (!refunded.ok) throw new Error(JSON.stringify(refunded.error));
      const refundCarried = refunded.result.returned_funds_id === excess.funds_id;
      const taken = [operator.ok, refundCarried, byHand.ok, assigned.ok].filter(Boolean);
      expect(taken).toHaveLength(1);
      for (const reply of [operator, byHand, assigned])
        if (!reply.ok) expect(reply.error.code).toBe('INVALID_STATUS');
      const [funds] = await fundsOf(businessId, paymentId);
      const refundRequests = await outboxOf<RefundRequested>(
        'crypto.refund.requested.v1',
        'payment_id',
        paymentId,
      );
      expect(refundRequests[0]!.excess ?? null).toEqual(
        refundCarried ? expect.objectContaining({ funds_id: excess.funds_id }) : null,
      );
      expect(await returnRequests(excess.funds_id)).toHaveLength(operator.ok ? 1 : 0);
      if (operator.ok) {
        wins.operator += 1;
        expect(funds).toMatchObject({ status: 'returning', returned_by: 'operator' });
      } else if (refundCarried) {
        wins.refund += 1;
        expect(funds).toMatchObject({ status: 'returning', returned_by: refunded.result.refund_id });
      } else if (byHand.ok) {
        wins.byHand += 1;
        expect(funds).toMatchObject({ status: 'returned', returned_by: 'manual' });
      } else {
        wins.assigned += 1;
        expect(funds).toMatchObject({ status: 'assigned' });
      }
    }
    expect(wins.operator + wins.refund + wins.byHand + wins.assigned).toBe(25);
  });

  /** A Pix paid to the charge of a payment the gateway does not know: kept as unmatched, of no business. */
  const unknownPaymentPix = async (amount = 3_300) => {
    const paymentId = newPublicId('pay');
    const paid = aPixChargePaid(
      { payment_id: paymentId, external_id: `txid${Date.now()}`, amount_centavos: amount } as never,
      { amount_centavos: amount },
    );
    await h.waitForHandled([await h.publishEvent(pixChargePaid, paid)]);
    const funds = await waitFor(async () => {
      const listed = await h.request(listAllReceivedFunds, { kind: 'unmatched', limit: 100 });
      if (!listed.ok) throw new Error(JSON.stringify(listed.error));
      return listed.result.data.find((item) => item.payment_id === paymentId);
    });
    expect(funds).toMatchObject({ business_id: null, status: 'held', amount_centavos: amount });
    return { paymentId, funds, endToEndId: paid.end_to_end_id };
  };
  const pixReturnRequests = (fundsId: string) =>
    outboxOf<FundsReturnRequested>('pix.funds-return.requested.v1', 'funds_id', fundsId);
  const settlePixReturn = async (
    request: FundsReturnRequested,
    outcome: 'succeeded' | 'failed',
    externalId: string | null,
  ) => {
    await h.waitForHandled([
      await h.publishEvent(pixFundsReturnSettled, {
        return_id: request.return_id,
        funds_id: request.funds_id,
        outcome,
        external_id: externalId,
        failure_reason: outcome === 'failed' ? 'Devolução recusada.' : null,
      }),
    ]);
  };
  const operatorView = async (fundsId: string): Promise<OperatorReceivedFundsItem | undefined> => {
    const listed = await h.request(listAllReceivedFunds, { kind: 'unmatched', limit: 100 });
    if (!listed.ok) throw new Error(JSON.stringify(listed.error));
    return listed.result.data.find((item) => item.funds_id === fundsId);
  };

  test('a Pix naming a payment the gateway does not know: returning at once, one devolução asked of the rail, returned with its id, the books told with no business', async () => {
    const { paymentId, funds, endToEndId } = await unknownPaymentPix(3_300);
    const [first, second] = await Promise.all([sendBack(funds.funds_id), sendBack(funds.funds_id)]);
    for (const reply of [first, second])
      expect(reply).toMatchObject({
        ok: true,
        result: {
          funds_id: funds.funds_id,
          payment_id: paymentId,
          business_id: null,
          status: 'returning',
          returned_by: 'operator',
        },
      });
    const requests = await pixReturnRequests(funds.funds_id);
    expect(requests).toEqual([
      {
        return_id: `${funds.funds_id}.return.1`,
        funds_id: funds.funds_id,
        payment_id: paymentId,
        rail_reference: endToEndId,
        instruction: null,
        amount_centavos: 3_300,
        amount_base_units: null,
        reason: null,
      },
    ]);
    expect(await returnedEvents(funds.funds_id)).toEqual([]);

    await settlePixReturn(requests[0]!, 'succeeded', 'D-devolucao-of-the-stranger');
    await settlePixReturn(requests[0]!, 'succeeded', 'D-devolucao-of-the-stranger');
    expect(await operatorView(funds.funds_id)).toMatchObject({
      status: 'returned',
      returned_by: 'operator',
      returned_at: expect.any(String),
      return_reference: 'D-devolucao-of-the-stranger',
      business_id: null,
    });
    expect(await returnedEvents(funds.funds_id)).toEqual([
      expect.objectContaining({
        funds_id: funds.funds_id,
        payment_id: paymentId,
        business_id: null,
        returned_by: 'operator',
        rail_reference: 'D-devolucao-of-the-stranger',
        money_key: `funds:${funds.funds_id}`,
      }),
    ]);
    expect(await returnedEvents(funds.funds_id)).toEqual([
      expect.not.objectContaining({ fee_centavos: expect.anything() }),
    ]);
    // Asked again once returned: as it stands, nothing more at the rail; never assigned afterwards.
    expect(await sendBack(funds.funds_id)).toMatchObject({ ok: true, result: { status: 'returned' } });
    expect(await pixReturnRequests(funds.funds_id)).toHaveLength(1);
    const businessId = await h.newBusiness();
    const target = (await h.createPayment(businessId)).payment.payment_id;
    expect(
      await h.request(assignReceivedFunds, { funds_id: funds.funds_id, payment_id: target }),
    ).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('operador') },
    });
  });

  test('tokens naming a payment the gateway does not know (no value) go back through the rail the same way', async () => {
    const unknown = newPublicId('pay');
    const transfer = aCryptoTransferUnapplied(
      { payment_id: unknown, external_id: 'RefOfNoPayment2222222222222222222222222222' } as never,
      { reason: 'after_expiry', amount_base_units: '424242' },
    );
    await h.client.publish(cryptoTransferUnapplied, transfer);
    const funds = await waitFor(async () => {
      const listed = await h.request(listAllReceivedFunds, { kind: 'unmatched', limit: 100 });
      if (!listed.ok) throw new Error(JSON.stringify(listed.error));
      return listed.result.data.find((item) => item.payment_id === unknown);
    });
    expect(funds).toMatchObject({ business_id: null, valued_centavos: null });
    expect(await sendBack(funds.funds_id)).toMatchObject({
      ok: true,
      result: { status: 'returning', business_id: null },
    });
    const [request] = await returnRequests(funds.funds_id);
    expect(request).toMatchObject({
      payment_id: unknown,
      rail_reference: transfer.signature,
      amount_base_units: '424242',
      amount_centavos: null,
    });
    await settleReturn(request!, 'succeeded', 'sig-back-to-the-stranger');
    expect(await returnedEvents(funds.funds_id)).toEqual([
      expect.objectContaining({
        business_id: null,
        returned_by: 'operator',
        rail_reference: 'sig-back-to-the-stranger',
      }),
    ]);
  });

  test('money naming an unknown payment assigned already is refused, nothing asked of the rail nor told the books', async () => {
    const businessId = await h.newBusiness();
    const target = (await h.createPayment(businessId)).payment.payment_id;
    const assignedFirst = await unknownPaymentPix();
    expect(
      await h.request(assignReceivedFunds, { funds_id: assignedFirst.funds.funds_id, payment_id: target }),
    ).toMatchObject({ ok: true, result: { status: 'assigned' } });
    expect(await sendBack(assignedFirst.funds.funds_id)).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('atribuídos') },
    });
    expect(await pixReturnRequests(assignedFirst.funds.funds_id)).toEqual([]);
    expect(await returnedEvents(assignedFirst.funds.funds_id)).toEqual([]);
  });

  test('a return and an assignment of money naming an unknown payment racing: exactly one takes it, 20 times', async () => {
    const businessId = await h.newBusiness();
    const target = (await h.createPayment(businessId)).payment.payment_id;
    const wins = { returned: 0, assigned: 0 };
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const { funds } = await unknownPaymentPix(1_000 + attempt);
      const [returned, assigned] = await Promise.all([
        sendBack(funds.funds_id),
        h.request(assignReceivedFunds, { funds_id: funds.funds_id, payment_id: target }),
      ]);
      expect([returned.ok, assigned.ok].filter(Boolean)).toHaveLength(1);
      const loser = returned.ok ? assigned : returned;
      expect(loser).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
      const assignedEvents = await outboxOf('payment.funds.assigned.v1', 'funds_id', funds.funds_id);
      expect(await pixReturnRequests(funds.funds_id)).toHaveLength(returned.ok ? 1 : 0);
      expect(assignedEvents).toHaveLength(assigned.ok ? 1 : 0);
      expect(await operatorView(funds.funds_id)).toMatchObject({
        status: returned.ok ? 'returning' : 'assigned',
      });
      if (returned.ok) wins.returned += 1;
      else wins.assigned += 1;
    }
    expect(wins.returned + wins.assigned).toBe(20);
  });

  const settlement = {
    return_id: 'fund_x.return.1',
    funds_id: newPublicId('fund'),
    outcome: 'failed' as const,
    external_id: null,
    failure_reason: 'Recusada.',
  };
  test.each([
    poisonCase(returnHeldFunds, { funds_id: newPublicId('fund'), reason: null }),
    poisonCase(pixFundsReturnSettled, settlement),
    poisonCase(cryptoFundsReturnSettled, settlement),
  ])('a poison %s message is parked, not retried forever', async (_name, definition, payload) => {
    const queue = definition.kind === 'command' ? 'commands' : 'events';
    const { messageId, parked } = await h.publishPoisoned(queue, definition, payload, { funds_id: 42 });
    expect(parked).toEqual([
      expect.objectContaining({ messageId, reason: expect.stringContaining('funds_id') }),
    ]);
  });

  test('after losing its broker connection the service starts and settles returns again', async () => {
    const businessId = await h.newBusiness();
    const { paymentId, excess } = await overpaid(businessId);
    h.service.broker.dropConnectionForTesting();
    // Sent again under the same message id until answered: a loaded machine may take longer than one reply's wait to
    // reconnect, and the inbox runs the command once.
    const messageId = `reconnect-${excess.funds_id}`;
    const answered = await untilAnsweredOk(
      () =>
        h.request(
          returnHeldFunds,
          { funds_id: excess.funds_id, reason: null },
          { timeoutMs: 1000, messageId },
        ),
      'a send-back after reconnect',
    );
    expect(answered.result).toMatchObject({ status: 'returning' });
    expect(await returnRequests(excess.funds_id)).toHaveLength(1);
    await settleReturn((await returnRequests(excess.funds_id))[0]!, 'succeeded', 'sig-after-reconnect');
    expect((await fundsOf(businessId, paymentId))[0]).toMatchObject({ status: 'returned' });
  });
});
