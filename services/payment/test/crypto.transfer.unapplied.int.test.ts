import {
  cryptoRequestClosed,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  listReceivedFunds,
  newPublicId,
  returnReceivedFunds,
} from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { publishAndAwaitHandling, waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import {
  aCryptoRequestClosed,
  aCryptoRequestSettled,
  aCryptoTransferUnapplied,
  type ReportedPayment,
} from './support/rail-events';

describe('crypto.transfer.unapplied.v1', () => {
  const h = paymentServiceForTheseTests('payment-unapplied');

  const funds = (paymentId: string) =>
    h.service.dataSource.query(
      `SELECT kind, rail, rail_reference, instruction, amount_centavos, amount_base_units AS units, recorded_at
         FROM received_funds WHERE payment_id = $1 ORDER BY id`,
      [paymentId],
    );

  const waitForFunds = (paymentId: string, count: number) =>
    waitFor(
      async () => {
        const rows = await funds(paymentId);
        return rows.length >= count ? rows : undefined;
      },
      { what: `${count} funds record(s) of ${paymentId}` },
    );

  const lateFundsCount = async (): Promise<number> => {
    const metric = await metricsRegistry.getSingleMetric('payment_late_funds_total')?.get();
    return metric?.values.find((value) => value.labels.rail === 'crypto')?.value ?? 0;
  };

  const newCryptoPayment = async () => {
    const businessId = await h.newBusiness();
    const view = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    return { businessId, payment: view.payment, paymentId: view.payment.payment_id };
  };

  const expire = async (businessId: string, payment: ReportedPayment) => {
    await h.client.publish(cryptoRequestClosed, aCryptoRequestClosed(payment));
    await h.waitForPaymentStatus(businessId, payment.payment_id, 'expired');
  };

  test('a transfer after expiry is recorded once as late funds, even delivered twice or re-sent; the payment stays expired', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    await expire(businessId, payment);
    const before = await lateFundsCount();
    const event = aCryptoTransferUnapplied(payment, { detected_at: '2030-01-02T03:04:05.000Z' });
    const deliver = (messageId: string) =>
      publishAndAwaitHandling(h.env.config, cryptoTransferUnapplied, event, { messageId });
    const messageId = newPublicId('msg');
    await Promise.all([
      deliver(messageId),
      deliver(messageId),
      // The same transfer under another message id (a re-emitted event) is held by the received_funds key.
      deliver(newPublicId('msg')),
    ]);
    expect(await funds(paymentId)).toEqual([
      {
        kind: 'late',
        rail: 'crypto',
        rail_reference: event.signature,
        instruction: '',
        amount_centavos: null,
        units: '1000000',
        recorded_at: new Date(event.detected_at),
      },
    ]);
    expect(await lateFundsCount()).toBe(before + 1);
    expect((await h.readPayment(businessId, paymentId)).payment).toMatchObject({
      status: 'expired',
      transaction_id: null,
    });
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1', 'payment.expired.v1']);
  });

  test('two late instructions of one transaction are two records, each its own money, once each however delivered', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    await expire(businessId, payment);
    const signature = `sig-${newPublicId('x')}`;
    const first = aCryptoTransferUnapplied(payment, {
      signature,
      instruction: '1',
      amount_base_units: '700000',
    });
    // An inner instruction in another token, for the same payment, in the same transaction.
    const second = aCryptoTransferUnapplied(payment, {
      signature,
      instruction: '2.0',
      amount_base_units: '300001',
      reason: 'wrong_mint',
      mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    });
    const firstId = newPublicId('msg');
    await Promise.all([
      publishAndAwaitHandling(h.env.config, cryptoTransferUnapplied, first, { messageId: firstId }),
      publishAndAwaitHandling(h.env.config, cryptoTransferUnapplied, first, { messageId: firstId }),
      // Re-emitted after a rescan: another message, the same instruction.
      publishAndAwaitHandling(h.env.config, cryptoTransferUnapplied, first, {
        messageId: newPublicId('msg'),
      }),
      publishAndAwaitHandling(h.env.config, cryptoTransferUnapplied, second, {
        messageId: newPublicId('msg'),
      }),
      publishAndAwaitHandling(h.env.config, cryptoTransferUnapplied, second, {
        messageId: newPublicId('msg'),
      }),
    ]);
    const rows = await funds(paymentId);
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'late',
          rail_reference: signature,
          instruction: '1',
          units: '700000',
        }),
        expect.objectContaining({
          kind: 'unmatched',
          rail_reference: signature,
          instruction: '2.0',
          units: '300001',
        }),
      ]),
    );
    expect(rows).toHaveLength(2);
    expect(rows.reduce((sum: bigint, row: { units: string }) => sum + BigInt(row.units), 0n)).toBe(1000001n);
    // The merchant sees both, under the signature an explorer finds, told apart by the instruction.
    const listed = await h.request(listReceivedFunds, { business_id: businessId, payment_id: paymentId });
    if (!listed.ok) throw new Error(JSON.stringify(listed.error));
    expect(listed.result.data.map(({ reference, instruction }) => ({ reference, instruction }))).toEqual(
      expect.arrayContaining([
        { reference: signature, instruction: '1' },
        { reference: signature, instruction: '2.0' },
      ]),
    );
    expect((await h.readPayment(businessId, paymentId)).payment.status).toBe('expired');
  });

  test('a transfer after settlement is late and the paid payment keeps its status and transaction id', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    const settled = aCryptoRequestSettled(payment);
    await h.client.publish(cryptoRequestSettled, settled);
    await h.waitForPaymentStatus(businessId, paymentId, 'paid');
    const event = aCryptoTransferUnapplied(payment, { reason: 'after_settlement' });
    await h.client.publish(cryptoTransferUnapplied, event);
    const [row] = await waitForFunds(paymentId, 1);
    expect(row).toMatchObject({ kind: 'late', rail_reference: event.signature });
    expect((await h.readPayment(businessId, paymentId)).payment).toMatchObject({
      status: 'paid',
      transaction_id: settled.signature,
    });
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1', 'payment.confirmed.v1']);
  });

  test('a transfer in another token is recorded as unmatched and the open payment stays pending', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    const event = aCryptoTransferUnapplied(payment, {
      reason: 'wrong_mint',
      mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    });
    await h.client.publish(cryptoTransferUnapplied, event);
    const [row] = await waitForFunds(paymentId, 1);
    expect(row).toMatchObject({ kind: 'unmatched', rail_reference: event.signature, units: '1000000' });
    expect((await h.readPayment(businessId, paymentId)).payment.status).toBe('pending');
    expect(await h.emittedPaymentEvents(paymentId)).toEqual(['payment.created.v1']);
  });

  test('one transfer naming two payments is unmatched funds of each, and pays neither', async () => {
    const first = await newCryptoPayment();
    const second = await newCryptoPayment();
    const signature = `sig-${newPublicId('x')}`;
    for (const { payment } of [first, second])
      await h.client.publish(
        cryptoTransferUnapplied,
        aCryptoTransferUnapplied(payment, { reason: 'ambiguous', signature }),
      );
    for (const { businessId, paymentId } of [first, second]) {
      const [row] = await waitForFunds(paymentId, 1);
      expect(row).toMatchObject({ kind: 'unmatched', rail_reference: signature, units: '1000000' });
      expect((await h.readPayment(businessId, paymentId)).payment.status).toBe('pending');
    }
  });

  /** Records the payment's only received funds as returned by hand; the payment service's reply. */
  const returnOnlyFunds = async (businessId: string, paymentId: string) => {
    const listed = await h.request(listReceivedFunds, { business_id: businessId, payment_id: paymentId });
    if (!listed.ok) throw new Error(JSON.stringify(listed.error));
    const [only] = listed.result.data;
    return h.request(returnReceivedFunds, {
      business_id: businessId,
      payment_id: paymentId,
      funds_id: only!.funds_id,
    });
  };

  test('money one instruction sent naming two payments is for no business to record returned by hand, even racing: it stays held for the operator', async () => {
    for (let round = 0; round < 5; round += 1) {
      const both = [await newCryptoPayment(), await newCryptoPayment()];
      const signature = `sig-${newPublicId('x')}`;
      for (const { payment } of both)
        await h.client.publish(
          cryptoTransferUnapplied,
          aCryptoTransferUnapplied(payment, { reason: 'ambiguous', signature, instruction: '1' }),
        );
      for (const { paymentId } of both) await waitForFunds(paymentId, 1);
      const replies = await Promise.all(
        both.map(({ businessId, paymentId }) => returnOnlyFunds(businessId, paymentId)),
      );
      for (const reply of replies)
        expect(reply).toMatchObject({
          ok: false,
          error: { code: 'INVALID_STATUS', message: expect.stringContaining('vários pagamentos') },
        });
      for (const { paymentId } of both)
        expect(
          await h.service.dataSource.query(
            `SELECT kind, returned_by, assigned_at FROM received_funds WHERE payment_id = $1`,
            [paymentId],
          ),
        ).toEqual([{ kind: 'unmatched', returned_by: null, assigned_at: null }]);
    }
  });

  test('funds whose amount is unknown cannot be returned by hand, and the transaction, once read, still pays', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    const unreadable = aCryptoTransferUnapplied(payment, { reason: 'unreadable', amount_base_units: null });
    await h.client.publish(cryptoTransferUnapplied, unreadable);
    await waitForFunds(paymentId, 1);
    expect(await returnOnlyFunds(businessId, paymentId)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS' },
    });
    await expect(
      h.service.dataSource.query(
        `UPDATE received_funds SET returned_by = 'manual', returned_at = now() WHERE payment_id = $1`,
        [paymentId],
      ),
    ).rejects.toThrow(/received_funds_unreadable_held/);
    await h.client.publish(
      cryptoRequestSettled,
      aCryptoRequestSettled(payment, { signature: unreadable.signature }),
    );
    await h.waitForPaymentStatus(businessId, paymentId, 'paid');
    expect(await funds(paymentId)).toEqual([]);
  });

  test('a transaction the watcher cannot read is unreadable funds with no amount, replaced by what it turns out to be', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    const unreadable = aCryptoTransferUnapplied(payment, { reason: 'unreadable', amount_base_units: null });
    await h.client.publish(cryptoTransferUnapplied, unreadable);
    const [row] = await waitForFunds(paymentId, 1);
    expect(row).toMatchObject({ kind: 'unreadable', rail_reference: unreadable.signature, units: null });
    expect((await h.readPayment(businessId, paymentId)).payment.status).toBe('pending');

    // Read at last, after the window: its late instruction is recorded, and the word that it was read drops the
    // unreadable record, in whichever order they are handled.
    await expire(businessId, payment);
    const late = aCryptoTransferUnapplied(payment, { signature: unreadable.signature, instruction: '0' });
    const read = { ...unreadable, reason: 'read' as const };
    await Promise.all(
      [late, read].map((event) =>
        publishAndAwaitHandling(h.env.config, cryptoTransferUnapplied, event, {
          messageId: newPublicId('msg'),
        }),
      ),
    );
    expect(await funds(paymentId)).toEqual([
      expect.objectContaining({
        kind: 'late',
        rail_reference: unreadable.signature,
        instruction: '0',
        units: '1000000',
      }),
    ]);
  });

  test('an unreadable transaction that, once read, is a partial payment leaves only the partial funds at the close', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    const unreadable = aCryptoTransferUnapplied(payment, { reason: 'unreadable', amount_base_units: null });
    await h.client.publish(cryptoTransferUnapplied, unreadable);
    await waitForFunds(paymentId, 1);
    // Read: the watcher applied it to the request (short of the price) and says it was read; nothing else comes
    // until the window closes with what it collected.
    const read = { ...unreadable, reason: 'read' as const };
    const readId = newPublicId('msg');
    for (let delivery = 0; delivery < 2; delivery += 1)
      await publishAndAwaitHandling(h.env.config, cryptoTransferUnapplied, read, { messageId: readId });
    expect(await funds(paymentId)).toEqual([]);
    await h.client.publish(
      cryptoRequestClosed,
      aCryptoRequestClosed(payment, { reason: 'underpaid', received_base_units: '400000' }),
    );
    await h.waitForPaymentStatus(businessId, paymentId, 'failed');
    expect(await funds(paymentId)).toEqual([
      expect.objectContaining({ kind: 'partial', rail_reference: payment.external_id, units: '400000' }),
    ]);
  });

  test('an unreadable transaction that, once read, pays the payment leaves no unreadable funds behind', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    const unreadable = aCryptoTransferUnapplied(payment, { reason: 'unreadable', amount_base_units: null });
    await h.client.publish(cryptoTransferUnapplied, unreadable);
    await waitForFunds(paymentId, 1);
    await h.client.publish(
      cryptoRequestSettled,
      aCryptoRequestSettled(payment, { signature: unreadable.signature }),
    );
    await h.waitForPaymentStatus(businessId, paymentId, 'paid');
    expect(await funds(paymentId)).toEqual([]);
  });

  test('an unreadable report with an amount, or a readable one without, is refused', async () => {
    const { payment } = await newCryptoPayment();
    for (const [reason, amount] of [
      ['unreadable', '5'],
      ['read', '5'],
      ['after_expiry', null],
    ] as const) {
      const { parked } = await h.publishPoisoned(
        'events',
        cryptoTransferUnapplied,
        aCryptoTransferUnapplied(payment),
        { reason, amount_base_units: amount },
      );
      expect(parked).toEqual([
        expect.objectContaining({ reason: expect.stringContaining('amount_base_units') }),
      ]);
    }
  });

  test('an instruction that is not a position in a transaction is refused', async () => {
    const { payment } = await newCryptoPayment();
    for (const instruction of ['', '1; DROP TABLE', '1.2.3', '\u00001', '9'.repeat(5000)]) {
      const { parked } = await h.publishPoisoned(
        'events',
        cryptoTransferUnapplied,
        aCryptoTransferUnapplied(payment),
        {
          instruction,
        },
      );
      expect(parked).toEqual([expect.objectContaining({ reason: expect.stringContaining('instruction') })]);
    }
  });

  test('a poison crypto.transfer.unapplied.v1 event is parked, not retried forever', async () => {
    const { messageId, parked } = await h.publishPoisoned(
      'events',
      cryptoTransferUnapplied,
      aCryptoTransferUnapplied({ payment_id: newPublicId('pay'), external_id: 'r', amount_centavos: 1 }),
      { payment_id: 42 },
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId, reason: expect.stringContaining('payment_id') }),
    ]);
  });

  test('after losing its broker connection the service records unapplied transfers again', async () => {
    const { businessId, payment, paymentId } = await newCryptoPayment();
    await expire(businessId, payment);
    h.service.broker.dropConnectionForTesting();
    const event = aCryptoTransferUnapplied(payment);
    await h.client.publish(cryptoTransferUnapplied, event);
    const [row] = await waitForFunds(paymentId, 1);
    expect(row).toMatchObject({ kind: 'late', rail_reference: event.signature });
    expect((await h.readPayment(businessId, paymentId)).payment.status).toBe('expired');
  });
});
