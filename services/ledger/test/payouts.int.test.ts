import {
  createPayout,
  getBalance,
  getPayout,
  listPayouts,
  newPublicId,
  payoutFailed,
  payoutPaid,
  readLedgerEventLog,
  setPayoutAccount,
  type Balance,
  type PayoutRecord,
  type PixPayoutSettled,
} from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { aPaymentEvent, waitFor } from '@gateway/testkit';
import { booksDisagreements } from './support/books';
import { ledgerServiceForTheseTests, type LedgerTestBed } from './support/ledger-service';

const CNPJ = '12345678000195';

async function ok<R>(reply: Promise<{ ok: true; result: R } | { ok: false; error: { code: string } }>) {
  const answer = await reply;
  if (!answer.ok) throw new Error(`refused: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

async function refusal(reply: Promise<{ ok: boolean; error?: { code: string } }>): Promise<string> {
  const answer = await reply;
  if (answer.ok) throw new Error('expected a refusal');
  return answer.error!.code;
}

/** Every journal sums to zero, and each business's balances equal its balance transactions' net and its entries. */
async function expectBooksConsistent(bed: LedgerTestBed): Promise<void> {
  expect(await booksDisagreements((text) => bed.sql(text))).toEqual([]);
}

describe('payouts in the ledger', () => {
  const bed = ledgerServiceForTheseTests('ledger-payouts');

  const balanceOf = (businessId: string): Promise<Balance> =>
    ok(bed.request(getBalance, { business_id: businessId }));

  /** A business with a payout account and `available` centavos available (one paid payment, settled). */
  async function businessWith(available: number): Promise<string> {
    const businessId = newPublicId('biz');
    await ok(
      bed.request(setPayoutAccount, {
        business_id: businessId,
        pix_key: CNPJ,
        pix_key_type: 'cnpj',
        holder_document: CNPJ,
      }),
    );
    if (available > 0) {
      await bed.confirm(
        aPaymentEvent({
          business_id: businessId,
          status: 'paid',
          amount_centavos: available,
          fee_centavos: 0,
        }),
      );
      await waitFor(async () => (await balanceOf(businessId)).available_centavos === available, {
        what: 'the payment settled',
      });
    }
    return businessId;
  }

  const settled = (payoutId: string, outcome: 'paid' | 'failed'): PixPayoutSettled => ({
    payout_id: payoutId,
    outcome,
    end_to_end_id: outcome === 'paid' ? `E${Date.now()}${Math.random().toString().slice(2, 12)}` : null,
    failure_reason: outcome === 'failed' ? 'Conta do favorecido encerrada' : null,
    settled_at: new Date().toISOString(),
  });

  const journals = async (causeKey: string) =>
    Number(
      (
        await bed.sql<{ n: string }>(`SELECT count(*) AS n FROM journals WHERE cause_key = $1`, [causeKey])
      )[0]!.n,
    );
  const outboxed = (name: string, payoutId: string) =>
    bed.sql<{ envelope: { payload: Record<string, unknown> } }>(
      `SELECT envelope FROM outbox WHERE name = $1 AND envelope::text LIKE '%' || $2 || '%'`,
      [name, payoutId],
    );

  test('a payout account must be well formed for its key type; the operator replaces it at will', async () => {
    const businessId = newPublicId('biz');
    const bad = [
      { pix_key: '1234567890a', pix_key_type: 'cpf', holder_document: '12345678901' },
      { pix_key: '11987654321', pix_key_type: 'phone', holder_document: CNPJ },
      { pix_key: 'not-an-email', pix_key_type: 'email', holder_document: CNPJ },
      { pix_key: 'a1b2', pix_key_type: 'evp', holder_document: CNPJ },
      { pix_key: CNPJ, pix_key_type: 'cnpj', holder_document: '98765432000110' },
      { pix_key: '+5511987654321', pix_key_type: 'evp', holder_document: CNPJ },
    ] as const;
    for (const account of bad)
      expect(await refusal(bed.request(setPayoutAccount, { business_id: businessId, ...account }))).toBe(
        'INVALID_FIELDS',
      );
    const set = await ok(
      bed.request(setPayoutAccount, {
        business_id: businessId,
        pix_key: '+5511987654321',
        pix_key_type: 'phone',
        holder_document: '12345678901',
      }),
    );
    expect(set).toMatchObject({ pix_key: '+5511987654321', pix_key_type: 'phone' });
    const replaced = await ok(
      bed.request(setPayoutAccount, {
        business_id: businessId,
        pix_key: 'financeiro@loja.com.br',
        pix_key_type: 'email',
        holder_document: '12345678901',
      }),
    );
    expect(replaced.pix_key).toBe('financeiro@loja.com.br');
    // The database refuses a key not of its type's form, whoever writes it.
    await expect(
      bed.sql(
        `INSERT INTO payout_accounts (business_id, pix_key, pix_key_type, holder_document)
         VALUES ($1, 'x', 'email', '12345678901')`,
        [newPublicId('biz')],
      ),
    ).rejects.toThrow(/payout_accounts_key_form/);
  });

  test('refusals: below the minimum, no payout account, more than available, nothing available', async () => {
    const noAccount = newPublicId('biz');
    expect(await refusal(bed.request(createPayout, { business_id: noAccount, amount_centavos: 99 }))).toBe(
      'INVALID_AMOUNT',
    );
    expect(await refusal(bed.request(createPayout, { business_id: noAccount, amount_centavos: 500 }))).toBe(
      'NO_PAYOUT_ACCOUNT',
    );
    const empty = await businessWith(0);
    expect(await refusal(bed.request(createPayout, { business_id: empty }))).toBe('INSUFFICIENT_BALANCE');
    const some = await businessWith(5_000);
    expect(await refusal(bed.request(createPayout, { business_id: some, amount_centavos: 5_001 }))).toBe(
      'INSUFFICIENT_BALANCE',
    );
    expect(await balanceOf(some)).toMatchObject({ available_centavos: 5_000, reserved_centavos: 0 });
    expect(await bed.sql(`SELECT 1 FROM payouts WHERE business_id = ANY($1)`, [[empty, some]])).toEqual([]);
  });

  test('a payout reserves its amount, with its journal and its request to the PIX adapter, in one go', async () => {
    const businessId = await businessWith(10_000);
    const payout = await ok(bed.request(createPayout, { business_id: businessId, amount_centavos: 3_000 }));
    expect(payout).toMatchObject({
      business_id: businessId,
      amount_centavos: 3_000,
      status: 'pending',
      destination: { pix_key_masked: '**.345.678/0001-**' },
      external_id: null,
      failure_reason: null,
    });
    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 7_000,
      reserved_centavos: 3_000,
    });
    expect(await journals(`payout:${payout.payout_id}:requested`)).toBe(1);
    const [requested] = await outboxed('payout.requested.v1', payout.payout_id);
    expect(requested!.envelope.payload).toEqual({
      payout_id: payout.payout_id,
      business_id: businessId,
      amount_centavos: 3_000,
      destination: { pix_key: CNPJ, pix_key_type: 'cnpj', holder_document: CNPJ },
      requested_at: payout.created_at,
    });
    // No amount: everything still available.
    const rest = await ok(bed.request(createPayout, { business_id: businessId }));
    expect(rest.amount_centavos).toBe(7_000);
    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 0, reserved_centavos: 10_000 });
    await expectBooksConsistent(bed);
  });

  test('the same command delivered again answers the same payout and reserves once', async () => {
    const businessId = await businessWith(4_000);
    const messageId = newPublicId('msg');
    const first = await ok(
      bed.request(createPayout, { business_id: businessId, amount_centavos: 1_000 }, { messageId }),
    );
    const again = await ok(
      bed.request(createPayout, { business_id: businessId, amount_centavos: 1_000 }, { messageId }),
    );
    expect(again).toEqual(first);
    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 3_000,
      reserved_centavos: 1_000,
    });
  });

  test('paid: reserved leaves the PSP account, one payout balance transaction, payout.paid; posted once however often it comes', async () => {
    const businessId = await businessWith(10_000);
    const payout = await ok(bed.request(createPayout, { business_id: businessId, amount_centavos: 2_500 }));
    const outcome = settled(payout.payout_id, 'paid');
    const messageId = newPublicId('msg');
    await bed.payoutSettled(outcome, messageId);
    await bed.payoutSettled(outcome, messageId);
    await Promise.all(Array.from({ length: 4 }, () => bed.payoutSettled(outcome, newPublicId('msg'))));

    expect(await journals(`payout:${payout.payout_id}:paid`)).toBe(1);
    const entries = await bed.sql(
      `SELECT e.account, e.business_id, e.amount_centavos::int AS amount FROM entries e
       JOIN journals j ON j.id = e.journal_id WHERE j.cause_key = $1 ORDER BY e.id`,
      [`payout:${payout.payout_id}:paid`],
    );
    expect(entries).toEqual([
      { account: 'reserved', business_id: businessId, amount: 2_500 },
      { account: 'cash_psp', business_id: null, amount: -2_500 },
    ]);
    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 7_500, reserved_centavos: 0 });
    const transactions = await bed.sql(
      `SELECT type, amount_centavos::int AS amount, fee_centavos::int AS fee, net_centavos::int AS net, status
       FROM balance_transactions WHERE source_id = $1`,
      [payout.payout_id],
    );
    expect(transactions).toEqual([
      { type: 'payout', amount: -2_500, fee: 0, net: -2_500, status: 'available' },
    ]);
    const read = await ok(bed.request(getPayout, { business_id: businessId, payout_id: payout.payout_id }));
    expect(read).toMatchObject({ status: 'paid', external_id: outcome.end_to_end_id, failure_reason: null });
    const events = await outboxed('payout.paid.v1', payout.payout_id);
    expect(events).toHaveLength(1);
    expect(events[0]!.envelope.payload).toMatchObject({ business_id: businessId, payout: read });
    await expectBooksConsistent(bed);
  });

  test("the ledger's event log answers its payouts' events after a position, in order, the other messages passed over", async () => {
    const start = (
      await bed.sql<{ position: string }>(`SELECT COALESCE(max(seq), 0)::text AS position FROM outbox`)
    )[0]!.position;
    const businessId = await businessWith(10_000);
    const paid = await ok(bed.request(createPayout, { business_id: businessId, amount_centavos: 1_000 }));
    const failed = await ok(bed.request(createPayout, { business_id: businessId, amount_centavos: 2_000 }));
    await bed.payoutSettled(settled(paid.payout_id, 'paid'), newPublicId('msg'));
    await bed.payoutSettled(settled(failed.payout_id, 'failed'), newPublicId('msg'));

    const page = await ok(
      bed.request(readLedgerEventLog, {
        after_position: start,
        limit: 1000,
        settled_seconds: 0,
        names: [payoutPaid.name, payoutFailed.name],
      }),
    );

    const mine = page.entries.filter((entry) => entry.payload.business_id === businessId);
    expect(mine.map((entry) => [entry.name, (entry.payload.payout as PayoutRecord).payout_id])).toEqual([
      [payoutPaid.name, paid.payout_id],
      [payoutFailed.name, failed.payout_id],
    ]);
    // The payouts' requests to the PIX adapter and the journals' events are in the same outbox: none is answered.
    expect(new Set(page.entries.map((entry) => entry.name))).toEqual(
      new Set([payoutPaid.name, payoutFailed.name]),
    );
    expect(BigInt(mine[0]!.position)).toBeLessThan(BigInt(mine[1]!.position));
    expect(page.has_more).toBe(false);
  });

  test('failed: the amount is available again, no balance transaction, payout.failed; a later "paid" changes nothing', async () => {
    const businessId = await businessWith(6_000);
    const payout = await ok(bed.request(createPayout, { business_id: businessId }));
    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 0, reserved_centavos: 6_000 });
    await bed.payoutSettled(settled(payout.payout_id, 'failed'));
    await bed.payoutSettled(settled(payout.payout_id, 'failed'));

    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 6_000, reserved_centavos: 0 });
    expect(await journals(`payout:${payout.payout_id}:failed`)).toBe(1);
    expect(
      await bed.sql(`SELECT 1 FROM balance_transactions WHERE source_id = $1`, [payout.payout_id]),
    ).toEqual([]);
    const read = await ok(bed.request(getPayout, { business_id: businessId, payout_id: payout.payout_id }));
    expect(read).toMatchObject({
      status: 'failed',
      external_id: null,
      failure_reason: 'Conta do favorecido encerrada',
    });
    expect(await outboxed('payout.failed.v1', payout.payout_id)).toHaveLength(1);

    // The other outcome for a final payout: handled (acknowledged), posts nothing, emits nothing.
    await bed.payoutSettled(settled(payout.payout_id, 'paid'));
    expect(await journals(`payout:${payout.payout_id}:paid`)).toBe(0);
    expect(
      await ok(bed.request(getPayout, { business_id: businessId, payout_id: payout.payout_id })),
    ).toEqual(read);
    expect(await outboxed('payout.paid.v1', payout.payout_id)).toEqual([]);
    await expectBooksConsistent(bed);
  });

  test('an outcome contradicting a final payout is counted once per message, by the outcome reported; the same outcome again is not', async () => {
    const conflicts = async (outcome: 'paid' | 'failed') => {
      const metric = await metricsRegistry.getSingleMetric('ledger_payout_outcome_conflicts_total')?.get();
      return metric?.values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
    };
    const before = { paid: await conflicts('paid'), failed: await conflicts('failed') };
    const businessId = await businessWith(5_000);
    const failed = await ok(bed.request(createPayout, { business_id: businessId, amount_centavos: 2_000 }));
    const paid = await ok(bed.request(createPayout, { business_id: businessId, amount_centavos: 3_000 }));
    await bed.payoutSettled(settled(failed.payout_id, 'failed'));
    await bed.payoutSettled(settled(paid.payout_id, 'paid'));
    await bed.payoutSettled(settled(paid.payout_id, 'paid'));
    expect({ paid: await conflicts('paid'), failed: await conflicts('failed') }).toEqual(before);

    // Money left for a payout the books say failed; a failure reported for one the books say paid.
    const messageId = newPublicId('msg');
    await bed.payoutSettled(settled(failed.payout_id, 'paid'), messageId);
    await bed.payoutSettled(settled(failed.payout_id, 'paid'), messageId);
    await bed.payoutSettled(settled(paid.payout_id, 'failed'));
    expect({ paid: await conflicts('paid'), failed: await conflicts('failed') }).toEqual({
      paid: before.paid + 1,
      failed: before.failed + 1,
    });
    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 2_000, reserved_centavos: 0 });
    await expectBooksConsistent(bed);
  });

  test('an outcome for a payout the ledger does not know is acknowledged and posts nothing', async () => {
    const before = await bed.sql(`SELECT count(*) AS n FROM journals`);
    const unknown = newPublicId('po');
    await bed.payoutSettled(settled(unknown, 'paid'));
    await bed.payoutSettled(settled(unknown, 'failed'));
    expect(await bed.sql(`SELECT count(*) AS n FROM journals`)).toEqual(before);
  });

  test('the database keeps the payout state machine: pending -> paid | failed once, nothing else changes', async () => {
    const businessId = await businessWith(3_000);
    const payout = await ok(bed.request(createPayout, { business_id: businessId, amount_centavos: 1_000 }));
    const id = payout.payout_id;
    await expect(bed.sql(`UPDATE payouts SET amount_centavos = 1 WHERE id = $1`, [id])).rejects.toThrow();
    await expect(bed.sql(`UPDATE payouts SET pix_key = '11111111111' WHERE id = $1`, [id])).rejects.toThrow();
    await expect(bed.sql(`DELETE FROM payouts WHERE id = $1`, [id])).rejects.toThrow(/never deleted/);
    await bed.payoutSettled(settled(id, 'paid'));
    await expect(
      bed.sql(
        `UPDATE payouts SET status = 'failed', end_to_end_id = NULL, failure_reason = 'x' WHERE id = $1`,
        [id],
      ),
    ).rejects.toThrow(/only pending -> paid or failed/);
    await expect(
      bed.sql(`UPDATE balances SET reserved_centavos = -1 WHERE business_id = $1`, [businessId]),
    ).rejects.toThrow(/check/i);
  });

  test('racing payouts never reserve more than was available (many rounds)', async () => {
    for (let round = 0; round < 20; round += 1) {
      const available = 1_000 + round * 37;
      const businessId = await businessWith(available);
      // Three payouts of 60 % and one of "everything", all at once: one 60 % at most, and never more than there was.
      const share = Math.ceil(available * 0.6);
      const answers = await Promise.all([
        ...Array.from({ length: 3 }, () =>
          bed.request(createPayout, { business_id: businessId, amount_centavos: share }),
        ),
        bed.request(createPayout, { business_id: businessId }),
      ]);
      const made = answers.flatMap((answer) => (answer.ok ? [answer.result] : []));
      for (const answer of answers) if (!answer.ok) expect(answer.error.code).toBe('INSUFFICIENT_BALANCE');
      expect(answers.slice(0, 3).filter((answer) => answer.ok).length).toBeLessThanOrEqual(1);
      const reserved = made.reduce((sum, payout) => sum + payout.amount_centavos, 0);
      expect(reserved).toBeLessThanOrEqual(available);
      const balance = await balanceOf(businessId);
      expect(balance.reserved_centavos).toBe(reserved);
      expect(balance.available_centavos + balance.reserved_centavos).toBe(available);
    }
    await expectBooksConsistent(bed);
  }, 60_000);

  test('lists a business its own payouts, newest first, a page at a time; another business reads none', async () => {
    const businessId = await businessWith(3_000);
    const made: PayoutRecord[] = [];
    for (let i = 0; i < 3; i += 1)
      made.push(await ok(bed.request(createPayout, { business_id: businessId, amount_centavos: 1_000 })));
    const first = await ok(bed.request(listPayouts, { business_id: businessId, limit: 2 }));
    expect(first.data.map((p) => p.payout_id)).toEqual([made[2]!.payout_id, made[1]!.payout_id]);
    expect(first.has_more).toBe(true);
    const second = await ok(
      bed.request(listPayouts, { business_id: businessId, limit: 2, starting_after: made[1]!.payout_id }),
    );
    expect(second).toEqual({ data: [made[0]], has_more: false });

    const other = newPublicId('biz');
    expect(await ok(bed.request(listPayouts, { business_id: other }))).toEqual({ data: [], has_more: false });
    expect(
      await refusal(bed.request(listPayouts, { business_id: other, starting_after: made[0]!.payout_id })),
    ).toBe('INVALID_FIELDS');
    expect(await refusal(bed.request(getPayout, { business_id: other, payout_id: made[0]!.payout_id }))).toBe(
      'NOT_FOUND',
    );
  });
});
