import { newPublicId, type PaymentEventPayload } from '@gateway/contracts';
import { aPaymentEvent, recordingLogger } from '@gateway/testkit';
import { PaymentPostingBatches } from '../src/application/payment-posting-batches';
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

/** Each cause key's journals: how many, and how many transactions wrote them (xmin, the inserting transaction). */
async function journalsOf(bed: LedgerTestBed, causeKeys: string[]) {
  const rows = await bed.sql<{ cause_key: string; xmin: string }>(
    `SELECT cause_key, xmin::text AS xmin FROM journals WHERE cause_key = ANY($1)`,
    [causeKeys],
  );
  const count = new Map(causeKeys.map((key) => [key, 0]));
  for (const row of rows) count.set(row.cause_key, count.get(row.cause_key)! + 1);
  return { count: [...count.values()], transactions: new Set(rows.map((row) => row.xmin)).size };
}

async function balanceRow(bed: LedgerTestBed, businessId: string) {
  const [row] = await bed.sql<{ pending: string; available: string }>(
    `SELECT pending_centavos AS pending, available_centavos AS available FROM balances WHERE business_id = $1`,
    [businessId],
  );
  return row;
}

describe('payments posted in batches', () => {
  // D+1: the postings stay pending, so a balance shows exactly what was posted.
  const bed = ledgerServiceForTheseTests('ledger-batches', {
    SETTLEMENT_DELAY_PIX: 86_400,
    SETTLEMENT_DELAY_CRYPTO: 86_400,
  });
  const batchesWith = (logger = bed.service.logger) =>
    new PaymentPostingBatches({
      dataSource: bed.service.dataSource,
      delays: { pix: 86_400, crypto: 86_400 },
      logger,
    });

  afterEach(async () => {
    expect(await booksDisagreements((text) => bed.sql(text))).toEqual([]);
  });

  test('payments that arrive together are posted together, in one transaction, each journal as one alone', async () => {
    const [first, second] = [newPublicId('biz'), newPublicId('biz')];
    const events = [
      paidEvent(first),
      paidEvent(second, { amount_centavos: 2_000, fee_centavos: 20 }),
      paidEvent(first, { amount_centavos: 500, fee_centavos: 0 }),
      paidEvent(second, { method: 'crypto', token: 'usdc', amount_centavos: 5_000, fee_centavos: 50 }),
    ];
    const batches = batchesWith();

    const outcomes = await Promise.all(events.map((event) => batches.post(event)));

    expect(outcomes).toEqual(events.map(() => ({ posted: true })));
    const keys = events.map((event) => event.event_id);
    expect(await journalsOf(bed, keys)).toEqual({ count: [1, 1, 1, 1], transactions: 1 });
    expect(await balanceRow(bed, first)).toEqual({ pending: String(9_801 + 500), available: '0' });
    expect(await balanceRow(bed, second)).toEqual({ pending: String(1_980 + 4_950), available: '0' });
    // Each journal's entries, in the order of its posting's lines (a zero fee writes no line).
    const entries = await bed.sql<{ cause_key: string; account: string; amount_centavos: string }>(
      `SELECT j.cause_key, e.account, e.amount_centavos FROM entries e JOIN journals j ON j.id = e.journal_id
       WHERE j.cause_key = ANY($1) ORDER BY e.id`,
      [keys],
    );
    const linesOf = (key: string) =>
      entries.filter((e) => e.cause_key === key).map((e) => [e.account, e.amount_centavos]);
    expect(linesOf(keys[0]!)).toEqual([
      ['cash_psp', '10000'],
      ['pending', '-9801'],
      ['fee_revenue', '-199'],
    ]);
    expect(linesOf(keys[2]!)).toEqual([
      ['cash_psp', '500'],
      ['pending', '-500'],
    ]);
    expect(linesOf(keys[3]!)).toEqual([
      ['tokens:usdc', '5000'],
      ['pending', '-4950'],
      ['fee_revenue', '-50'],
    ]);
    const transactions = await bed.sql<{ source_id: string; journal_cause: string; status: string }>(
      `SELECT b.source_id, j.cause_key AS journal_cause, b.status FROM balance_transactions b
       JOIN journals j ON j.id = b.journal_id WHERE j.cause_key = ANY($1)`,
      [keys],
    );
    expect(transactions).toHaveLength(4);
    for (const event of events)
      expect(transactions).toContainEqual({
        source_id: event.payment.payment_id,
        journal_cause: event.event_id,
        status: 'pending',
      });
  });

  test('the same event twice, and another event of the same payment, in one batch post the payment once', async () => {
    const businessId = newPublicId('biz');
    const original = paidEvent(businessId, { amount_centavos: 1_000, fee_centavos: 10 });
    const replay = { ...original, event_id: newPublicId('evt') };
    const other = paidEvent(businessId, { amount_centavos: 2_000, fee_centavos: 20 });
    const batches = batchesWith();

    const outcomes = await Promise.all(
      [original, original, replay, other].map((event) => batches.post(event)),
    );

    expect(outcomes).toEqual([{ posted: true }, { posted: false }, { posted: false }, { posted: true }]);
    expect((await journalsOf(bed, [original.event_id, replay.event_id, other.event_id])).count).toEqual([
      1, 0, 1,
    ]);
    expect(await balanceRow(bed, businessId)).toEqual({ pending: String(990 + 1_980), available: '0' });
  });

  test('a batch the database refuses posts its other payments once each; the refused one fails alone and posts when retried', async () => {
    const businessId = newPublicId('biz');
    const events = Array.from({ length: 5 }, () =>
      paidEvent(businessId, { amount_centavos: 1_000, fee_centavos: 10 }),
    );
    const refused = events[2]!;
    const { logger, lines } = recordingLogger('ledger-batches');
    const batches = batchesWith(logger);
    // The database refuses this one journal (as it would a posting that breaks one of its rules).
    await bed.sql(`
      CREATE FUNCTION refuse_one_journal() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.cause_key = '${refused.event_id}' THEN RAISE EXCEPTION 'refused for the test'; END IF;
        RETURN NEW;
      END $$`);
    await bed.sql(`CREATE TRIGGER refuse_one_journal BEFORE INSERT ON journals
      FOR EACH ROW EXECUTE FUNCTION refuse_one_journal()`);
    try {
      const outcomes = await Promise.allSettled(events.map((event) => batches.post(event)));

      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/refused for the test/);
      expect(lines).toContainEqual(
        expect.objectContaining({
          msg: 'a batch of payment postings was refused: each is posted on its own',
        }),
      );
      expect(
        (
          await journalsOf(
            bed,
            events.map((event) => event.event_id),
          )
        ).count,
      ).toEqual([1, 1, 0, 1, 1]);
      expect(await balanceRow(bed, businessId)).toEqual({ pending: String(4 * 990), available: '0' });
    } finally {
      await bed.sql(`DROP TRIGGER refuse_one_journal ON journals`);
      await bed.sql(`DROP FUNCTION refuse_one_journal()`);
    }

    // Its message is retried: now it posts, and the others, delivered again, post nothing more.
    expect(await Promise.all(events.map((event) => batches.post(event)))).toEqual([
      { posted: false },
      { posted: false },
      { posted: true },
      { posted: false },
      { posted: false },
    ]);
    expect(
      (
        await journalsOf(
          bed,
          events.map((event) => event.event_id),
        )
      ).count,
    ).toEqual([1, 1, 1, 1, 1]);
    expect(await balanceRow(bed, businessId)).toEqual({ pending: String(5 * 990), available: '0' });
  });

  test('a batch committed whose messages were never acked (the process died) is delivered again and posts nothing more', async () => {
    const businessId = newPublicId('biz');
    const events = Array.from({ length: 6 }, () =>
      paidEvent(businessId, { amount_centavos: 1_000, fee_centavos: 10 }),
    );
    await Promise.all(events.map((event) => batchesWith().post(event)));
    expect(await balanceRow(bed, businessId)).toEqual({ pending: String(6 * 990), available: '0' });

    // The broker hands every message to the running service again, all at once.
    await Promise.all(events.map((event) => bed.confirm(event, newPublicId('msg'))));

    expect(
      (
        await journalsOf(
          bed,
          events.map((event) => event.event_id),
        )
      ).count,
    ).toEqual([1, 1, 1, 1, 1, 1]);
    expect(await balanceRow(bed, businessId)).toEqual({ pending: String(6 * 990), available: '0' });
  });

  test('two processes posting overlapping batches at once (businesses in opposite orders, shared events) never deadlock and post each once (many tries)', async () => {
    const businesses = Array.from({ length: 6 }, () => newPublicId('biz'));
    const { logger, lines } = recordingLogger('ledger-batches');
    const [one, two] = [batchesWith(logger), batchesWith(logger)];
    const all: PaymentEventPayload[] = [];
    for (let round = 0; round < 20; round += 1) {
      const events = businesses.map((businessId) =>
        paidEvent(businessId, { amount_centavos: 1_000, fee_centavos: 10 }),
      );
      all.push(...events);
      await Promise.all([
        ...events.map((event) => one.post(event)),
        ...[...events].reverse().map((event) => two.post(event)),
      ]);
    }

    expect(lines.filter((line) => line.level !== 30)).toEqual([]);
    const { count } = await journalsOf(
      bed,
      all.map((event) => event.event_id),
    );
    expect(count.every((n) => n === 1)).toBe(true);
    for (const businessId of businesses)
      expect(await balanceRow(bed, businessId)).toEqual({ pending: String(20 * 990), available: '0' });
  }, 60_000);
});
