import {
  disputeClosed,
  disputeCreated,
  fundsAssigned,
  fundsReceived,
  fundsReturned,
  getBalance,
  listBalanceTransactions,
  newPublicId,
  type DisputeEventPayload,
  type FundsAssigned,
  type FundsReceived,
  type FundsReturned,
  type MessageDefinition,
} from '@gateway/contracts';
import {
  aPaymentEvent,
  poisonCase,
  poisonedEnvelope,
  publishAndAwaitHandling,
  publishAndAwaitParking,
  takeParkedMessages,
  waitFor,
} from '@gateway/testkit';
import { createEnvelope } from '@gateway/messaging';
import { ledgerServiceForTheseTests } from './support/ledger-service';

// Money that belongs to no payment yet (suspense) and disputes, published on the real broker as their producers
// will publish them, posted by the ledger once each.

const aFundsReceived = (overrides: Partial<FundsReceived> = {}): FundsReceived => {
  const fundsId = newPublicId('fund');
  return {
    event_id: newPublicId('evt'),
    occurred_at: new Date().toISOString(),
    funds_id: fundsId,
    money_key: `funds:${fundsId}`,
    kind: 'late',
    rail: 'pix',
    payment_id: newPublicId('pay'),
    business_id: newPublicId('biz'),
    amount_centavos: 2_500,
    amount_base_units: null,
    token: null,
    ...overrides,
  };
};

const returnedEvent = (received: FundsReceived, overrides: Partial<FundsReturned> = {}): FundsReturned => ({
  event_id: newPublicId('evt'),
  occurred_at: new Date().toISOString(),
  funds_id: received.funds_id,
  money_key: received.money_key,
  rail: received.rail,
  payment_id: received.payment_id,
  business_id: received.business_id!,
  returned_by: newPublicId('ref'),
  ...overrides,
});

const assignedEvent = (received: FundsReceived, overrides: Partial<FundsAssigned> = {}): FundsAssigned => ({
  event_id: newPublicId('evt'),
  occurred_at: new Date().toISOString(),
  funds_id: received.funds_id,
  money_key: received.money_key,
  rail: received.rail,
  payment_id: received.payment_id,
  business_id: received.business_id!,
  ...overrides,
});

const disputeEvent = (
  dispute: { dispute_id: string; payment_id: string; business_id: string; amount_centavos: number },
  status: 'open' | 'won' | 'lost',
): DisputeEventPayload => {
  const now = new Date().toISOString();
  return {
    event_id: newPublicId('evt'),
    business_id: dispute.business_id,
    occurred_at: now,
    dispute: { ...dispute, method: 'pix', status, reason: 'MED_FRAUDE', created_at: now, updated_at: now },
  };
};

describe('the ledger books money in suspense and disputes, once each', () => {
  const bed = ledgerServiceForTheseTests('ledger-suspense');

  const post = <P>(definition: MessageDefinition<P>, payload: P, messageId?: string) =>
    publishAndAwaitHandling(bed.env.config, definition, payload, { messageId });

  const balanceOf = async (businessId: string) => {
    const reply = await bed.request(getBalance, { business_id: businessId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };
  const transactionsOf = async (businessId: string) => {
    const reply = await bed.request(listBalanceTransactions, { business_id: businessId, limit: 100 });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result.data;
  };
  /** Each account's entries under journals whose cause key starts with `prefix`, summed. */
  const entriesOf = async (causeKey: string) =>
    bed.sql<{ account: string; business_id: string | null; amount: number }>(
      `SELECT e.account, e.business_id, e.amount_centavos::int AS amount FROM entries e
         JOIN journals j ON j.id = e.journal_id WHERE j.cause_key = $1 ORDER BY e.id`,
      [causeKey],
    );
  const journalsNamed = async (causeKey: string) =>
    Number(
      (
        await bed.sql<{ n: string }>(`SELECT count(*) AS n FROM journals WHERE cause_key = $1`, [causeKey])
      )[0]!.n,
    );
  /** What suspense holds for these money keys (a debit leaves it positive: the sum is minus what it holds). */
  const inSuspense = async (...moneyKeys: string[]) => {
    const [row] = await bed.sql<{ held: string | null }>(
      `SELECT -sum(e.amount_centavos) AS held FROM entries e JOIN journals j ON j.id = e.journal_id
        WHERE e.account = 'suspense' AND substring(j.cause_key from '^funds:[a-z]+:(.*)$') = ANY($1)`,
      [moneyKeys],
    );
    return Number(row!.held ?? 0);
  };
  const suspenseRow = async (moneyKey: string) =>
    (
      await bed.sql<{ status: string; amount_centavos: string | null }>(
        `SELECT status, amount_centavos FROM suspense_funds WHERE money_key = $1`,
        [moneyKey],
      )
    )[0];

  /** Every journal sums to zero, and each business's balances equal the sum of its balance transactions' net. */
  async function expectBooksConsistent(): Promise<void> {
    expect(
      await bed.sql(`SELECT journal_id FROM entries GROUP BY journal_id HAVING sum(amount_centavos) <> 0`),
    ).toEqual([]);
    expect(
      await bed.sql(`
        SELECT b.business_id FROM balances b
        LEFT JOIN (SELECT business_id, sum(net_centavos) AS net FROM balance_transactions GROUP BY business_id) t
          USING (business_id)
        WHERE b.available_centavos + b.pending_centavos + b.reserved_centavos + b.blocked_centavos
          <> COALESCE(t.net, 0)`),
    ).toEqual([]);
  }

  test('late PIX funds go to suspense once, however often and under whichever event id they come', async () => {
    const received = aFundsReceived();

    await post(fundsReceived, received);
    await post(fundsReceived, received);
    await post(fundsReceived, { ...received, event_id: newPublicId('evt') }, newPublicId('msg'));

    const key = `funds:received:${received.money_key}`;
    expect(await journalsNamed(key)).toBe(1);
    expect(await entriesOf(key)).toEqual([
      { account: 'cash_psp', business_id: null, amount: 2_500 },
      { account: 'suspense', business_id: null, amount: -2_500 },
    ]);
    expect(await suspenseRow(received.money_key)).toEqual({ status: 'held', amount_centavos: '2500' });
    // Nobody is owed it yet: no business balance moved.
    expect(await balanceOf(received.business_id!)).toMatchObject({
      available_centavos: 0,
      pending_centavos: 0,
    });
    await expectBooksConsistent();
  });

  test('one crypto instruction kept by two payments (unmatched) is booked once, at tokens of its token', async () => {
    const moneyKey = `crypto:${newPublicId('sig').replace(/[^A-Za-z0-9]/g, '')}:2`;
    const first = aFundsReceived({
      kind: 'unmatched',
      rail: 'crypto',
      money_key: moneyKey,
      amount_centavos: 5_000,
      amount_base_units: '1000000',
      token: 'usdc',
    });
    const second = { ...first, event_id: newPublicId('evt'), funds_id: newPublicId('fund') };

    await Promise.all([post(fundsReceived, first), post(fundsReceived, second)]);

    expect(await entriesOf(`funds:received:${moneyKey}`)).toEqual([
      { account: 'tokens:usdc', business_id: null, amount: 5_000 },
      { account: 'suspense', business_id: null, amount: -5_000 },
    ]);
    expect(await inSuspense(moneyKey)).toBe(5_000);
  });

  test('tokens whose BRL value is not known are kept on record with nothing booked, until a record values them', async () => {
    const moneyKey = `crypto:${newPublicId('sig').replace(/[^A-Za-z0-9]/g, '')}:3`;
    const unvalued = aFundsReceived({
      kind: 'unmatched',
      rail: 'crypto',
      money_key: moneyKey,
      business_id: null,
      amount_centavos: null,
      amount_base_units: '2000000',
      token: null,
    });
    await post(fundsReceived, unvalued);
    expect(await journalsNamed(`funds:received:${moneyKey}`)).toBe(0);
    expect(await suspenseRow(moneyKey)).toEqual({ status: 'held', amount_centavos: null });

    await post(fundsReceived, {
      ...unvalued,
      event_id: newPublicId('evt'),
      funds_id: newPublicId('fund'),
      business_id: newPublicId('biz'),
      amount_centavos: 10_100,
      token: 'usdt',
    });
    expect(await entriesOf(`funds:received:${moneyKey}`)).toEqual([
      { account: 'tokens:usdt', business_id: null, amount: 10_100 },
      { account: 'suspense', business_id: null, amount: -10_100 },
    ]);
    expect(await suspenseRow(moneyKey)).toEqual({ status: 'held', amount_centavos: '10100' });
  });

  test('funds a refund returned leave suspense and the PSP account once; a return before the money came in waits', async () => {
    const received = aFundsReceived({ kind: 'excess', amount_centavos: 700 });
    const returned = returnedEvent(received);

    // The return is handled first (two events handled out of order): it fails, and is delivered again later.
    await bed.client.publish(fundsReturned, returned);
    await post(fundsReceived, received);
    await waitFor(async () => (await suspenseRow(received.money_key))?.status === 'returned', {
      what: 'the return posted after the money came in',
    });
    await post(fundsReturned, returned);
    await post(fundsReturned, { ...returned, event_id: newPublicId('evt') }, newPublicId('msg'));

    expect(await entriesOf(`funds:out:${received.money_key}`)).toEqual([
      { account: 'suspense', business_id: null, amount: 700 },
      { account: 'cash_psp', business_id: null, amount: -700 },
    ]);
    expect(await inSuspense(received.money_key)).toBe(0);
    expect(await transactionsOf(received.business_id!)).toEqual([]);
    await expectBooksConsistent();
  });

  test('money naming a payment the gateway does not know, returned by the operator (no business): out of suspense and the PSP account once, no balance moved', async () => {
    const received = aFundsReceived({ kind: 'unmatched', business_id: null, amount_centavos: 3_300 });
    await post(fundsReceived, received);
    expect(await inSuspense(received.money_key)).toBe(3_300);
    const returned = returnedEvent(received, {
      business_id: null,
      returned_by: 'operator',
      rail_reference: 'D-return-of-a-stranger',
    });
    await post(fundsReturned, returned);
    await post(fundsReturned, { ...returned, event_id: newPublicId('evt') }, newPublicId('msg'));

    expect(await entriesOf(`funds:out:${received.money_key}`)).toEqual([
      { account: 'suspense', business_id: null, amount: 3_300 },
      { account: 'cash_psp', business_id: null, amount: -3_300 },
    ]);
    expect(
      await bed.sql(`SELECT kind, rail_reference FROM journals WHERE cause_key = $1`, [
        `funds:out:${received.money_key}`,
      ]),
    ).toEqual([{ kind: 'funds_returned', rail_reference: 'D-return-of-a-stranger' }]);
    expect(await inSuspense(received.money_key)).toBe(0);
    expect(
      await bed.sql(`SELECT status, closed_business_id FROM suspense_funds WHERE money_key = $1`, [
        received.money_key,
      ]),
    ).toEqual([{ status: 'returned', closed_business_id: null }]);
    await expectBooksConsistent();
  });

  test('tokens of no value naming an unknown payment, returned by the operator: the record closes, nothing is posted', async () => {
    const moneyKey = `crypto:${newPublicId('sig').replace(/[^A-Za-z0-9]/g, '')}:0`;
    const unvalued = aFundsReceived({
      kind: 'unmatched',
      rail: 'crypto',
      money_key: moneyKey,
      business_id: null,
      amount_centavos: null,
      amount_base_units: '990000',
      token: null,
    });
    await post(fundsReceived, unvalued);
    await post(
      fundsReturned,
      returnedEvent(unvalued, { business_id: null, returned_by: 'operator', rail_reference: 'sigBack' }),
    );
    expect(await suspenseRow(moneyKey)).toEqual({ status: 'returned', amount_centavos: null });
    expect(await journalsNamed(`funds:out:${moneyKey}`)).toBe(0);
  });

  test('a return by hand naming no business is refused by the contract and parked: nothing leaves suspense', async () => {
    const received = aFundsReceived({ amount_centavos: 800 });
    await post(fundsReceived, received);
    const envelope = poisonedEnvelope(fundsReturned, returnedEvent(received, { returned_by: 'manual' }), {
      business_id: null,
    });
    const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'ledger', 'events', envelope);
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('business_id') }),
    ]);
    expect(await suspenseRow(received.money_key)).toEqual({ status: 'held', amount_centavos: '800' });
    expect(await journalsNamed(`funds:out:${received.money_key}`)).toBe(0);
  });

  test('funds the business paid back itself (returned by hand) are credited to it as a payment: less the fee, settled', async () => {
    const received = aFundsReceived({ amount_centavos: 1_234 });
    await post(fundsReceived, received);

    await post(fundsReturned, returnedEvent(received, { returned_by: 'manual', fee_centavos: 34 }));

    expect(await inSuspense(received.money_key)).toBe(0);
    expect(await entriesOf(`funds:out:${received.money_key}`)).toEqual([
      { account: 'suspense', business_id: null, amount: 1_234 },
      { account: 'pending', business_id: received.business_id, amount: -1_200 },
      { account: 'fee_revenue', business_id: null, amount: -34 },
    ]);
    // No settlement delay here: the sweep makes the net available at once, as for a payment.
    await waitFor(async () => (await balanceOf(received.business_id!)).available_centavos === 1_200);
    expect(await balanceOf(received.business_id!)).toMatchObject({ pending_centavos: 0 });
    expect(await transactionsOf(received.business_id!)).toEqual([
      expect.objectContaining({
        type: 'adjustment',
        source_id: received.funds_id,
        amount_centavos: 1_234,
        fee_centavos: 34,
        net_centavos: 1_200,
        status: 'available',
        description: expect.stringContaining(received.funds_id),
      }),
    ]);
    await expectBooksConsistent();
  });

  test('funds the operator assigned move from suspense to the business once; a later return posts nothing', async () => {
    const received = aFundsReceived({ kind: 'late', amount_centavos: 4_321 });
    const target = { payment_id: newPublicId('pay'), business_id: newPublicId('biz') };
    await post(fundsReceived, received);
    const assigned = assignedEvent(received, { ...target, fee_centavos: 21 });

    await post(fundsAssigned, assigned);
    await post(fundsAssigned, assigned);
    await post(fundsAssigned, { ...assigned, event_id: newPublicId('evt') }, newPublicId('msg'));
    await post(fundsReturned, returnedEvent(received));

    const out = `funds:out:${received.money_key}`;
    expect(await journalsNamed(out)).toBe(1);
    expect(await entriesOf(out)).toEqual([
      { account: 'suspense', business_id: null, amount: 4_321 },
      { account: 'pending', business_id: target.business_id, amount: -4_300 },
      { account: 'fee_revenue', business_id: null, amount: -21 },
    ]);
    expect(await suspenseRow(received.money_key)).toMatchObject({ status: 'assigned' });
    await waitFor(async () => (await balanceOf(target.business_id)).available_centavos === 4_300);
    expect(await transactionsOf(target.business_id)).toEqual([
      expect.objectContaining({
        type: 'adjustment',
        source_id: received.funds_id,
        fee_centavos: 21,
        net_centavos: 4_300,
        description: expect.stringContaining(target.payment_id),
      }),
    ]);
    // The business the money first named is owed nothing of it.
    expect(await transactionsOf(received.business_id!)).toEqual([]);
    await expectBooksConsistent();
  });

  test('the database refuses a second way out of suspense and any change of what came in', async () => {
    const received = aFundsReceived();
    await post(fundsReceived, received);
    await post(fundsReturned, returnedEvent(received));

    await expect(
      bed.sql(
        `UPDATE suspense_funds SET status = 'assigned', closed_business_id = 'x' WHERE money_key = $1`,
        [received.money_key],
      ),
    ).rejects.toThrow(/leaves suspense once/);
    await expect(
      bed.sql(`DELETE FROM suspense_funds WHERE money_key = $1`, [received.money_key]),
    ).rejects.toThrow(/never deleted/);
  });

  describe('disputes', () => {
    /** A business with R$ 99,00 available: one PIX payment of R$ 100,00 (fee R$ 1,00), settled. */
    const businessWithMoney = async () => {
      const businessId = newPublicId('biz');
      const paid = aPaymentEvent({
        business_id: businessId,
        status: 'paid',
        amount_centavos: 10_000,
        fee_centavos: 100,
      });
      await bed.confirm(paid);
      await waitFor(async () => (await balanceOf(businessId)).available_centavos === 9_900, {
        what: 'the payment settled',
      });
      return { businessId, paymentId: paid.payment.payment_id };
    };
    const aDispute = (owner: { businessId: string; paymentId: string }, amount: number) => ({
      dispute_id: newPublicId('dsp'),
      payment_id: owner.paymentId,
      business_id: owner.businessId,
      amount_centavos: amount,
    });

    test('opened blocks the amount at once; won releases it, with a dispute_won line of zero; each once', async () => {
      const owner = await businessWithMoney();
      const dispute = aDispute(owner, 3_000);
      const opened = disputeEvent(dispute, 'open');

      await post(disputeCreated, opened);
      await post(disputeCreated, opened);
      await post(disputeCreated, { ...opened, event_id: newPublicId('evt') }, newPublicId('msg'));
      expect(await balanceOf(owner.businessId)).toMatchObject({
        available_centavos: 6_900,
        blocked_centavos: 3_000,
      });
      await expectBooksConsistent();

      const won = disputeEvent(dispute, 'won');
      await post(disputeClosed, won);
      await post(disputeClosed, won);
      // Closed once: a contradicting close afterwards changes nothing.
      await post(disputeClosed, disputeEvent(dispute, 'lost'));

      expect(await journalsNamed(`dispute:opened:${dispute.dispute_id}`)).toBe(1);
      expect(await entriesOf(`dispute:closed:${dispute.dispute_id}`)).toEqual([
        { account: 'blocked', business_id: owner.businessId, amount: 3_000 },
        { account: 'available', business_id: owner.businessId, amount: -3_000 },
      ]);
      expect(await balanceOf(owner.businessId)).toMatchObject({
        available_centavos: 9_900,
        blocked_centavos: 0,
      });
      const lines = await transactionsOf(owner.businessId);
      expect(lines.filter((line) => line.source_id === dispute.dispute_id)).toEqual([
        expect.objectContaining({ type: 'dispute_won', amount_centavos: 0, net_centavos: 0 }),
      ]);
      await expectBooksConsistent();
    });

    test('lost sends the blocked amount out of the PSP account: a dispute line of −D', async () => {
      const owner = await businessWithMoney();
      const dispute = aDispute(owner, 2_000);

      await post(disputeCreated, disputeEvent(dispute, 'open'));
      await post(disputeClosed, disputeEvent(dispute, 'lost'));
      await post(disputeClosed, disputeEvent(dispute, 'lost'));

      expect(await entriesOf(`dispute:closed:${dispute.dispute_id}`)).toEqual([
        { account: 'blocked', business_id: owner.businessId, amount: 2_000 },
        { account: 'cash_psp', business_id: null, amount: -2_000 },
      ]);
      expect(await balanceOf(owner.businessId)).toMatchObject({
        available_centavos: 7_900,
        blocked_centavos: 0,
      });
      expect(
        (await transactionsOf(owner.businessId)).filter((line) => line.source_id === dispute.dispute_id),
      ).toEqual([
        expect.objectContaining({
          type: 'dispute',
          amount_centavos: -2_000,
          fee_centavos: 0,
          net_centavos: -2_000,
        }),
      ]);
      await expectBooksConsistent();
    });

    test("a closing naming another business than the opening is parked and moves neither business's money", async () => {
      const owner = await businessWithMoney();
      const other = await businessWithMoney();
      const dispute = aDispute(owner, 3_000);
      await post(disputeCreated, disputeEvent(dispute, 'open'));
      // The other business has as much blocked: a closing posted to it would go through.
      await post(disputeCreated, disputeEvent(aDispute(other, 3_000), 'open'));
      const before = await Promise.all([balanceOf(owner.businessId), balanceOf(other.businessId)]);

      for (const status of ['won', 'lost'] as const) {
        const forged = disputeEvent({ ...dispute, business_id: other.businessId }, status);
        const envelope = createEnvelope(disputeClosed, forged);
        const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'ledger', 'events', envelope);
        expect(parked).toEqual([
          expect.objectContaining({
            messageId: envelope.id,
            reason: expect.stringMatching(/another business than its opening/),
          }),
        ]);
      }

      expect(await journalsNamed(`dispute:closed:${dispute.dispute_id}`)).toBe(0);
      expect(await Promise.all([balanceOf(owner.businessId), balanceOf(other.businessId)])).toEqual(before);
      expect(before.map((balance) => balance.blocked_centavos)).toEqual([3_000, 3_000]);
      // The dispute stays open: its real closing still posts, to the business it blocked.
      await post(disputeClosed, disputeEvent(dispute, 'won'));
      expect(await balanceOf(owner.businessId)).toMatchObject({
        available_centavos: 9_900,
        blocked_centavos: 0,
      });
      expect(await balanceOf(other.businessId)).toMatchObject({
        available_centavos: 6_900,
        blocked_centavos: 3_000,
      });
      await expectBooksConsistent();
    });

    test('a dispute larger than what is available leaves available below zero; a close before the opening waits', async () => {
      const owner = await businessWithMoney();
      const dispute = aDispute(owner, 10_000);

      await bed.client.publish(disputeClosed, disputeEvent(dispute, 'lost'));
      await post(disputeCreated, disputeEvent(dispute, 'open'));
      await waitFor(
        async () =>
          (
            await bed.sql(`SELECT 1 FROM disputes WHERE dispute_id = $1 AND status = 'lost'`, [
              dispute.dispute_id,
            ])
          ).length === 1,
        { what: 'the close posted after the opening' },
      );

      expect(await balanceOf(owner.businessId)).toMatchObject({
        available_centavos: -100,
        blocked_centavos: 0,
      });
      await expectBooksConsistent();
    });
  });
  describe('delivery', () => {
    const someFunds = aFundsReceived();
    const someDispute = {
      dispute_id: newPublicId('dsp'),
      payment_id: newPublicId('pay'),
      business_id: newPublicId('biz'),
      amount_centavos: 100,
    };
    test.each([
      poisonCase(fundsReceived, someFunds),
      poisonCase(fundsReturned, returnedEvent(someFunds)),
      poisonCase(fundsAssigned, assignedEvent(someFunds)),
      poisonCase(disputeCreated, disputeEvent(someDispute, 'open')),
      poisonCase(disputeClosed, disputeEvent(someDispute, 'won')),
    ])('a poison %s is parked and posts nothing', async (_name, definition, payload) => {
      const journals = async () =>
        Number((await bed.sql<{ n: string }>(`SELECT count(*) AS n FROM journals`))[0]!.n);
      const before = await journals();
      const poison = 'money_key' in payload ? { money_key: 42 } : { dispute: 'x' };
      const envelope = poisonedEnvelope(definition, payload, poison);
      const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'ledger', 'events', envelope);
      expect(parked).toEqual([expect.objectContaining({ messageId: envelope.id, type: definition.name })]);
      expect(await journals()).toBe(before);
      expect(await takeParkedMessages(`${bed.env.config.AMQP_PREFIX}ledger.events.parking`)).toEqual([]);
    });

    test('after the service loses its broker connection, funds and disputes published meanwhile are posted', async () => {
      const funds = aFundsReceived({ amount_centavos: 900 });
      const dispute = {
        dispute_id: newPublicId('dsp'),
        payment_id: newPublicId('pay'),
        business_id: funds.business_id!,
        amount_centavos: 400,
      };
      bed.service.broker.dropConnectionForTesting();
      await bed.client.publish(fundsReceived, funds);
      await bed.client.publish(disputeCreated, disputeEvent(dispute, 'open'));
      await waitFor(
        async () => {
          const balance = await balanceOf(funds.business_id!).catch(() => undefined);
          return balance?.blocked_centavos === 400 && (await inSuspense(funds.money_key)) === 900;
        },
        { timeoutMs: 15_000, what: 'both posted after reconnect' },
      );
    });
  });
});
