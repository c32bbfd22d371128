import { getBalance, newPublicId, type PaymentEventPayload } from '@gateway/contracts';
import { aPaymentEvent, aRefundEvent, waitFor } from '@gateway/testkit';
import { postConfirmedPayment } from '../src/application/post-confirmed-payment';
import { booksDisagreements } from './support/books';
import { ledgerServiceForTheseTests, type LedgerTestBed } from './support/ledger-service';

const paidEvent = (businessId: string, extra: Partial<PaymentEventPayload['payment']> = {}) =>
  aPaymentEvent({
    business_id: businessId,
    status: 'paid',
    amount_centavos: 10_000,
    fee_centavos: 199,
    ...extra,
  });

async function journalsCausedBy(bed: LedgerTestBed, causeKey: string): Promise<number> {
  const [row] = await bed.sql<{ n: string }>(`SELECT count(*) AS n FROM journals WHERE cause_key = $1`, [
    causeKey,
  ]);
  return Number(row!.n);
}

async function balanceOf(bed: LedgerTestBed, businessId: string) {
  const reply = await bed.request(getBalance, { business_id: businessId });
  if (!reply.ok) throw new Error(JSON.stringify(reply.error));
  return reply.result;
}

/** Every journal sums to zero, and each business's balances equal its balance transactions' net and its entries. */
async function expectBooksConsistent(bed: LedgerTestBed): Promise<void> {
  expect(await booksDisagreements((text) => bed.sql(text))).toEqual([]);
}

describe('the ledger posts money events once', () => {
  const bed = ledgerServiceForTheseTests('ledger-postings');

  test('payment.confirmed.v1 posts one journal; the same event delivered again posts nothing more', async () => {
    const businessId = newPublicId('biz');
    const event = paidEvent(businessId);

    await bed.confirm(event);
    await bed.confirm(event);
    await bed.confirm(event, newPublicId('msg'));

    expect(await journalsCausedBy(bed, event.event_id)).toBe(1);
    const entries = await bed.sql<{ account: string; business_id: string | null; amount_centavos: string }>(
      `SELECT e.account, e.business_id, e.amount_centavos FROM entries e JOIN journals j ON j.id = e.journal_id
       WHERE j.cause_key = $1 ORDER BY e.id`,
      [event.event_id],
    );
    expect(entries).toEqual([
      { account: 'cash_psp', business_id: null, amount_centavos: '10000' },
      { account: 'pending', business_id: businessId, amount_centavos: '-9801' },
      { account: 'fee_revenue', business_id: null, amount_centavos: '-199' },
    ]);
    // No settlement delay here: the net becomes available at once (the sweep runs after each posting).
    const balance = await waitFor(
      async () => {
        const read = await balanceOf(bed, businessId);
        return read.available_centavos === 9_801 ? read : undefined;
      },
      { what: 'the payment settled' },
    );
    expect(balance).toMatchObject({ pending_centavos: 0, reserved_centavos: 0, blocked_centavos: 0 });
    expect(await journalsCausedBy(bed, `settle:${event.payment.payment_id}`)).toBe(1);
    await expectBooksConsistent(bed);
  });

  test("a subscription's paid cycle is a confirmed payment like any: credited its net once", async () => {
    const businessId = newPublicId('biz');
    const event = paidEvent(businessId, { subscription_id: newPublicId('sub'), cycle: 3 });
    await bed.confirm(event);
    await bed.confirm(event);
    expect(await journalsCausedBy(bed, event.event_id)).toBe(1);
    await waitFor(async () => (await balanceOf(bed, businessId)).available_centavos === 9_801 || undefined, {
      what: 'the cycle credited',
    });
    await expectBooksConsistent(bed);
  });

  test('a crypto payment is held in its token account at cost; an old record without a token in tokens:unknown', async () => {
    const businessId = newPublicId('biz');
    const usdc = paidEvent(businessId, {
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 5_000,
      fee_centavos: 50,
    });
    const old = paidEvent(businessId, { method: 'crypto', amount_centavos: 3_000, fee_centavos: 30 });
    await bed.confirm(usdc);
    await bed.confirm(old);

    const debits = await bed.sql<{ account: string; amount_centavos: string }>(
      `SELECT e.account, e.amount_centavos FROM entries e JOIN journals j ON j.id = e.journal_id
       WHERE j.cause_key = ANY($1) AND e.amount_centavos > 0 ORDER BY e.amount_centavos DESC`,
      [[usdc.event_id, old.event_id]],
    );
    expect(debits).toEqual([
      { account: 'tokens:usdc', amount_centavos: '5000' },
      { account: 'tokens:unknown', amount_centavos: '3000' },
    ]);
  });

  test('concurrent deliveries of the same event post once (many tries)', async () => {
    const businessId = newPublicId('biz');
    const events = Array.from({ length: 15 }, () =>
      paidEvent(businessId, { amount_centavos: 1_000, fee_centavos: 10 }),
    );
    for (const event of events) {
      // Through the broker (each delivery a message of its own) and straight into the use case, all at once.
      await Promise.all([
        ...Array.from({ length: 4 }, () => bed.confirm(event, newPublicId('msg'))),
        ...Array.from({ length: 4 }, () =>
          postConfirmedPayment(
            { dataSource: bed.service.dataSource, delays: { pix: 0, crypto: 0 }, logger: bed.service.logger },
            event,
          ),
        ),
      ]);
    }

    for (const event of events) expect(await journalsCausedBy(bed, event.event_id)).toBe(1);
    const [row] = await bed.sql<{ n: string; net: string }>(
      `SELECT count(*) AS n, sum(net_centavos) AS net FROM balance_transactions WHERE business_id = $1`,
      [businessId],
    );
    expect(row).toEqual({ n: '15', net: String(15 * 990) });
    await waitFor(async () => (await balanceOf(bed, businessId)).available_centavos === 15 * 990, {
      what: 'every payment settled once',
    });
    await expectBooksConsistent(bed);
  }, 60_000);

  test('two events about one payment (a replay under a new event id), even at once, post it once (many tries)', async () => {
    const businessId = newPublicId('biz');
    for (let round = 0; round < 10; round += 1) {
      const original = paidEvent(businessId, { amount_centavos: 1_000, fee_centavos: 10 });
      const replays = [
        original,
        { ...original, event_id: newPublicId('evt') },
        { ...original, event_id: newPublicId('evt') },
      ];
      await Promise.all(replays.map((event) => bed.confirm(event)));
      const [row] = await bed.sql<{ n: string }>(
        `SELECT count(*) AS n FROM balance_transactions WHERE type = 'payment' AND source_id = $1`,
        [original.payment.payment_id],
      );
      expect(row!.n).toBe('1');
    }
    await expect(
      bed.sql(`SELECT 1 FROM balance_transactions WHERE business_id = $1`, [businessId]),
    ).resolves.toHaveLength(10);
    await expectBooksConsistent(bed);
  }, 60_000);

  test('a crypto payment and its refund delivered at once: the refund always returns the money from the token account, waiting for the payment if it came first (many tries)', async () => {
    const businessId = newPublicId('biz');
    for (let round = 0; round < 10; round += 1) {
      const payment = paidEvent(businessId, {
        method: 'crypto',
        token: 'usdc',
        amount_centavos: 2_000,
        fee_centavos: 20,
      });
      const refund = aRefundEvent({
        business_id: businessId,
        payment_id: payment.payment.payment_id,
        method: 'crypto',
        status: 'succeeded',
        amount_centavos: 500,
      });
      // A refund handled before its payment fails; the broker delivers an event again after a delay (here, where the
      // test awaits the answer, the test delivers it again).
      const [, refundFirst] = await Promise.all([
        bed.confirm(payment),
        bed.refundSucceeded(refund).then(
          () => false,
          () => true,
        ),
      ]);
      if (refundFirst) await bed.refundSucceeded(refund);
      const journals = await bed.sql<{ cause_key: string; id: string; holding: string | null }>(
        `SELECT j.cause_key, j.id,
           (SELECT e.account FROM entries e WHERE e.journal_id = j.id AND e.account LIKE 'tokens:%') AS holding
         FROM journals j WHERE j.cause_key = ANY($1)`,
        [[payment.event_id, refund.event_id]],
      );
      expect(journals).toHaveLength(2);
      const paymentJournal = journals.find((j) => j.cause_key === payment.event_id)!;
      const refundJournal = journals.find((j) => j.cause_key === refund.event_id)!;
      expect(Number(paymentJournal.id)).toBeLessThan(Number(refundJournal.id));
      expect(refundJournal.holding).toBe('tokens:usdc');
    }
    await expectBooksConsistent(bed);
  }, 60_000);

  test('refund.succeeded.v1 returns the money from where the payment holds it, from available then pending', async () => {
    const businessId = newPublicId('biz');
    const payment = paidEvent(businessId, {
      method: 'crypto',
      token: 'usdt',
      amount_centavos: 20_000,
      fee_centavos: 200,
    });
    await bed.confirm(payment);
    await waitFor(async () => (await balanceOf(bed, businessId)).available_centavos === 19_800, {
      what: 'the payment settled',
    });
    const refund = aRefundEvent({
      business_id: businessId,
      payment_id: payment.payment.payment_id,
      method: 'crypto',
      status: 'succeeded',
      amount_centavos: 5_000,
    });

    await bed.refundSucceeded(refund);
    await bed.refundSucceeded(refund);
    // The same refund under another event id (a replay), twice at once.
    await Promise.all([
      bed.refundSucceeded({ ...refund, event_id: newPublicId('evt') }),
      bed.refundSucceeded({ ...refund, event_id: newPublicId('evt') }),
    ]);

    expect(await journalsCausedBy(bed, refund.event_id)).toBe(1);
    const entries = await bed.sql<{ account: string; amount_centavos: string }>(
      `SELECT e.account, e.amount_centavos FROM entries e JOIN journals j ON j.id = e.journal_id
       WHERE j.cause_key = $1 ORDER BY e.id`,
      [refund.event_id],
    );
    expect(entries).toEqual([
      { account: 'available', amount_centavos: '5000' },
      { account: 'tokens:usdt', amount_centavos: '-5000' },
    ]);
    expect(await balanceOf(bed, businessId)).toMatchObject({
      available_centavos: 14_800,
      pending_centavos: 0,
    });
    const [bt] = await bed.sql(
      `SELECT type, source_id, amount_centavos, fee_centavos, net_centavos, status FROM balance_transactions
       WHERE source_id = $1`,
      [refund.refund.refund_id],
    );
    expect(bt).toEqual({
      type: 'refund',
      source_id: refund.refund.refund_id,
      amount_centavos: '-5000',
      fee_centavos: '0',
      net_centavos: '-5000',
      status: 'available',
    });
    await expectBooksConsistent(bed);
  });

  test('a refund larger than the balance is posted (the money has left): available goes below zero', async () => {
    const businessId = newPublicId('biz');
    const payment = paidEvent(businessId, { amount_centavos: 1_000, fee_centavos: 100 });
    await bed.confirm(payment);
    const refund = aRefundEvent({
      business_id: businessId,
      payment_id: payment.payment.payment_id,
      status: 'succeeded',
      amount_centavos: 1_000,
    });
    await bed.refundSucceeded(refund);
    await waitFor(
      async () => {
        const balance = await balanceOf(bed, businessId);
        return balance.available_centavos === -100 && balance.pending_centavos === 0;
      },
      { what: 'available at -100 once the payment settled' },
    );
    await expectBooksConsistent(bed);
  });
});

describe('the database refuses what the books forbid', () => {
  const bed = ledgerServiceForTheseTests('ledger-constraints');

  /** A journal and its entries (account, centavos) in one transaction, as the service writes them: its id. */
  const newJournal = (causeKey: string, entries: Array<[string, number]>) =>
    bed.service.dataSource.transaction(async (manager) => {
      const [journal] = (await manager.query(
        `INSERT INTO journals (cause_key, kind) VALUES ($1, 'adjustment') RETURNING id`,
        [causeKey],
      )) as Array<{ id: string }>;
      for (const [account, centavos] of entries)
        await manager.query(
          `INSERT INTO entries (journal_id, account, amount_centavos) VALUES ($1, $2, $3)`,
          [journal!.id, account, centavos],
        );
      return journal!.id;
    });

  test('a journal with no entries is refused at commit: its cause is not used up', async () => {
    const empty = `test:${newPublicId('evt')}`;
    await expect(newJournal(empty, [])).rejects.toThrow(/has 0 entries/);
    expect(await journalsCausedBy(bed, empty)).toBe(0);
  });

  test('entries cannot be added to a journal once it is committed, even balanced ones', async () => {
    const journalId = await newJournal(`test:${newPublicId('evt')}`, [
      ['cash_psp', 100],
      ['suspense', -100],
    ]);
    await expect(
      bed.service.dataSource.transaction(async (manager) => {
        await manager.query(
          `INSERT INTO entries (journal_id, account, amount_centavos) VALUES ($1, 'cash_psp', 5), ($1, 'suspense', -5)`,
          [journalId],
        );
      }),
    ).rejects.toThrow(/is closed/);
  });

  test('a journal whose entries do not sum to zero is refused at commit; a balanced one is kept', async () => {
    const unbalanced = `test:${newPublicId('evt')}`;
    await expect(
      bed.service.dataSource.transaction(async (manager) => {
        const [journal] = (await manager.query(
          `INSERT INTO journals (cause_key, kind) VALUES ($1, 'adjustment') RETURNING id`,
          [unbalanced],
        )) as Array<{ id: string }>;
        await manager.query(
          `INSERT INTO entries (journal_id, account, amount_centavos) VALUES ($1, 'cash_psp', 100), ($1, 'suspense', -99)`,
          [journal!.id],
        );
      }),
    ).rejects.toThrow(/does not sum to zero/);
    expect(await journalsCausedBy(bed, unbalanced)).toBe(0);

    const balanced = `test:${newPublicId('evt')}`;
    await bed.service.dataSource.transaction(async (manager) => {
      const [journal] = (await manager.query(
        `INSERT INTO journals (cause_key, kind) VALUES ($1, 'adjustment') RETURNING id`,
        [balanced],
      )) as Array<{ id: string }>;
      await manager.query(
        `INSERT INTO entries (journal_id, account, amount_centavos) VALUES ($1, 'cash_psp', 100), ($1, 'suspense', -100)`,
        [journal!.id],
      );
    });
    expect(await journalsCausedBy(bed, balanced)).toBe(1);
  });

  test('an entry or a journal can be neither updated nor deleted', async () => {
    const journalId = await newJournal(`test:${newPublicId('evt')}`, [
      ['cash_psp', 250],
      ['suspense', -250],
    ]);

    for (const statement of [
      `UPDATE entries SET amount_centavos = amount_centavos + 1 WHERE journal_id = $1`,
      `UPDATE entries SET account = 'fee_revenue' WHERE journal_id = $1`,
      `DELETE FROM entries WHERE journal_id = $1`,
      `UPDATE journals SET cause_key = cause_key || 'x' WHERE id = $1`,
      `DELETE FROM journals WHERE id = $1`,
    ])
      await expect(bed.sql(statement, [journalId])).rejects.toThrow(/immutable/);
    await expect(bed.sql(`TRUNCATE entries`)).rejects.toThrow(/immutable/);

    const amounts = await bed.sql<{ amount_centavos: string }>(
      `SELECT amount_centavos FROM entries WHERE journal_id = $1 ORDER BY id`,
      [journalId],
    );
    expect(amounts.map((row) => row.amount_centavos)).toEqual(['250', '-250']);
  });

  test('a business balance other than available cannot go below zero', async () => {
    await expect(
      bed.sql(`INSERT INTO balances (business_id, pending_centavos) VALUES ($1, -1)`, [newPublicId('biz')]),
    ).rejects.toThrow(/check constraint/);
  });

  describe("a business's balance moves only as its entries do, checked at commit", () => {
    /** A business with 10 000 pending (a paid payment posted by the service). */
    async function businessWithPending(): Promise<string> {
      const businessId = newPublicId('biz');
      await bed.confirm(paidEvent(businessId, { amount_centavos: 10_199, fee_centavos: 199 }));
      await waitFor(
        async () => (await balanceOf(bed, businessId)).available_centavos === 10_000 || undefined,
      );
      return businessId;
    }

    /** In one transaction: a journal with these entries (account, business or null, centavos), then `sql`. */
    const inOneTransaction = (entries: Array<[string, string | null, number]>, sql: string[]) =>
      bed.service.dataSource.transaction(async (manager) => {
        if (entries.length > 0) {
          const [journal] = (await manager.query(
            `INSERT INTO journals (cause_key, kind) VALUES ($1, 'adjustment') RETURNING id`,
            [`test:${newPublicId('evt')}`],
          )) as Array<{ id: string }>;
          for (const [account, businessId, centavos] of entries)
            await manager.query(
              `INSERT INTO entries (journal_id, account, business_id, amount_centavos) VALUES ($1, $2, $3, $4)`,
              [journal!.id, account, businessId, centavos],
            );
        }
        for (const statement of sql) await manager.query(statement);
      });

    test('a balance changed without entries is refused', async () => {
      const businessId = await businessWithPending();
      await expect(
        inOneTransaction(
          [],
          [
            `UPDATE balances SET available_centavos = available_centavos + 500 WHERE business_id = '${businessId}'`,
          ],
        ),
      ).rejects.toThrow(/moved otherwise than its entries/);
      expect(await balanceOf(bed, businessId)).toMatchObject({ available_centavos: 10_000 });
    });

    test('entries naming a business whose balance was not changed with them are refused', async () => {
      const businessId = await businessWithPending();
      await expect(
        inOneTransaction(
          [
            ['cash_psp', null, 300],
            ['available', businessId, -300],
          ],
          [],
        ),
      ).rejects.toThrow(/moved otherwise than its entries/);
      await expectBooksConsistent(bed);
    });

    test('a balance changed by another amount, or in another account, than its entries is refused', async () => {
      const businessId = await businessWithPending();
      const entries: Array<[string, string | null, number]> = [
        ['available', businessId, 400],
        ['reserved', businessId, -400],
      ];
      for (const change of [
        `available_centavos = available_centavos - 400, reserved_centavos = reserved_centavos + 399`,
        `available_centavos = available_centavos - 400, blocked_centavos = blocked_centavos + 400`,
      ])
        await expect(
          inOneTransaction(entries, [`UPDATE balances SET ${change} WHERE business_id = '${businessId}'`]),
        ).rejects.toThrow(/moved otherwise than its entries/);
      await expectBooksConsistent(bed);
    });

    test('a balance or a settlement can be neither deleted nor truncated', async () => {
      const businessId = await businessWithPending();
      const settlementsOf = () =>
        bed.sql<{ remaining_centavos: string }>(
          `SELECT remaining_centavos FROM settlements WHERE business_id = $1`,
          [businessId],
        );
      const [settlement] = await settlementsOf();

      for (const statement of [
        `DELETE FROM balances WHERE business_id = $1`,
        `DELETE FROM settlements WHERE business_id = $1`,
      ])
        await expect(bed.sql(statement, [businessId])).rejects.toThrow(/never removed/);
      for (const table of ['balances', 'settlements'])
        await expect(bed.sql(`TRUNCATE ${table} CASCADE`)).rejects.toThrow(/never removed/);

      expect(await balanceOf(bed, businessId)).toMatchObject({
        available_centavos: 10_000,
        pending_centavos: 0,
      });
      expect(await settlementsOf()).toEqual([settlement]);
      await expectBooksConsistent(bed);
    });

    test('a balance changed as its entries moved, in any number of steps, is accepted', async () => {
      const businessId = await businessWithPending();
      await inOneTransaction(
        [
          ['available', businessId, 400],
          ['reserved', businessId, -400],
        ],
        [
          `UPDATE balances SET available_centavos = available_centavos - 100 WHERE business_id = '${businessId}'`,
          `UPDATE balances SET available_centavos = available_centavos - 300, reserved_centavos = reserved_centavos + 400
            WHERE business_id = '${businessId}'`,
        ],
      );
      expect(await balanceOf(bed, businessId)).toMatchObject({
        available_centavos: 9_600,
        reserved_centavos: 400,
      });
    });
  });
});
