import { businessWithMoney as sharedBusinessWithMoney, useLedgerStack } from './support/stack-books';
import { newPublicId, pixPayoutSettled } from '@gateway/contracts';
import { jsonLogLines, waitFor, type JsonBody } from '@gateway/testkit';
import { booksDisagreements } from './support/books';

const CNPJ = '12345678000195';
const ROUNDS = 30;

/**
 * Payouts through the whole stack as `npm start` runs it: money on the balance from payments paid by the sandbox's
 * payer, payouts requested over the public API (racing for the same money, many rounds), their outcome reported as the
 * PIX adapter reports it (paid by the PSP simulator, then the outcome told again), and the ledger's books read in one
 * snapshot of its tables.
 */
describe('payouts in the stack', () => {
  // A business, its account and its fee rule per round: more operator requests a minute than the default allows.
  const ledger = useLedgerStack(
    { ADMIN_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' },
    'payouts-e2e',
  );

  const businessWithMoney = (amount: number) =>
    sharedBusinessWithMoney(ledger.client, `Padaria ${newPublicId('n').slice(-6)}`, amount);

  /** The books' disagreements (support/books.ts), and any business with less than nothing available. */
  async function booksDisagreementsInStack(): Promise<unknown[]> {
    return [
      ...(await booksDisagreements((text) => ledger.books.query(text))),
      ...(await ledger.books.query(`SELECT business_id FROM balances WHERE available_centavos < 0`)),
    ];
  }

  test('a payout through the API: reserved at once, masked, paid by the PSP, posted once however often its outcome is told, announced', async () => {
    const { apiKey } = await businessWithMoney(10_000);
    // A destination in the body is not the API key's to give: the payout goes to the registered account.
    const created = await ledger.client.api(
      apiKey,
      'POST',
      '/v1/payouts',
      { amount: 4_000, pix_key: 'outro@example.com', pix_key_type: 'email' },
      { 'Idempotency-Key': `po-${newPublicId('k')}` },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      amount_brl: 40,
      status: 'pending',
      destination: { pix_key_masked: '**.345.678/0001-**' },
    });
    const payoutId = created.body.payout_id as string;
    expect((await ledger.books.query(`SELECT pix_key FROM payouts WHERE id = $1`, [payoutId]))[0]).toEqual({
      pix_key: CNPJ,
    });
    // The PIX adapter sends it to the PSP simulator and reports the outcome: paid, with the send's endToEndId.
    const paid = await waitFor(
      async () => {
        const { body } = await ledger.client.api(apiKey, 'GET', `/v1/payouts/${payoutId}`);
        return body.status === 'paid' ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the payout paid' },
    );
    expect(paid.external_id).toMatch(/^E\d{20}[A-Za-z0-9]{11}$/);
    expect((await ledger.client.api(apiKey, 'GET', '/v1/balance')).body).toMatchObject({
      available_brl: 60,
      reserved_brl: 0,
    });

    // The PSP's outcome told again (a redelivery, a replay), then the other outcome: nothing more is posted. The
    // contradiction's error line says the ledger has read every one of them.
    const settled = {
      payout_id: payoutId,
      outcome: 'paid' as const,
      end_to_end_id: paid.external_id as string,
      failure_reason: null,
      settled_at: new Date().toISOString(),
    };
    await ledger.broker.publish(pixPayoutSettled, settled);
    await ledger.broker.publish(pixPayoutSettled, settled);
    await ledger.broker.publish(pixPayoutSettled, {
      ...settled,
      outcome: 'failed',
      end_to_end_id: null,
      failure_reason: 'O envio não foi realizado',
    });
    await waitFor(
      () =>
        jsonLogLines(ledger.stack).some(
          (line) =>
            line.payout_id === payoutId &&
            line.msg === 'payout outcome contradicts its final status: nothing posted',
        ),
      { timeoutMs: 30_000, intervalMs: 200, what: 'the contradicting outcome read by the ledger' },
    );
    expect((await ledger.client.api(apiKey, 'GET', `/v1/payouts/${payoutId}`)).body).toEqual(paid);
    const event = await waitFor(
      async () => {
        const { body } = await ledger.client.api(apiKey, 'GET', '/v1/events?type=payout.paid');
        return (body.data as JsonBody[]).find((item) => item.data.payout_id === payoutId);
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'payout.paid in the events API' },
    );
    expect(event.data).toEqual(paid);
    expect(JSON.stringify(event)).not.toContain(CNPJ);
    const { body: listed } = await ledger.client.api(apiKey, 'GET', '/v1/balance_transactions?type=payout');
    expect(listed.data.map((bt: JsonBody) => [bt.source_id, bt.amount_brl, bt.fee_brl, bt.net_brl])).toEqual([
      [payoutId, -40, 0, -40],
    ]);
    expect(
      await ledger.books.query(`SELECT count(*)::int AS n FROM journals WHERE cause_key LIKE $1`, [
        `payout:${payoutId}:%`,
      ]),
    ).toEqual([{ n: 2 }]);
    expect((await ledger.client.api(apiKey, 'GET', '/v1/payouts')).body.data[0]).toEqual(paid);
    expect(await booksDisagreementsInStack()).toEqual([]);
  }, 120_000);

  test(`racing payouts never spend the same money twice (${ROUNDS} rounds of concurrent POSTs)`, async () => {
    const rounds: Array<{ available: number; reserved: number }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const available = 1_000 + round * 113;
      const { apiKey } = await businessWithMoney(available);
      const share = Math.ceil(available * 0.6);
      const answers = await Promise.all([
        ...Array.from({ length: 3 }, (_, i) =>
          ledger.client.api(
            apiKey,
            'POST',
            '/v1/payouts',
            { amount: share },
            { 'Idempotency-Key': `r${round}-${i}` },
          ),
        ),
        ledger.client.api(apiKey, 'POST', '/v1/payouts', {}),
      ]);
      for (const answer of answers)
        if (answer.status !== 201)
          expect([answer.status, answer.body.error.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
      const made = answers.filter((answer) => answer.status === 201);
      expect(made.length).toBeGreaterThanOrEqual(1);
      const reserved = made.reduce((sum, answer) => sum + Math.round(answer.body.amount_brl * 100), 0);
      rounds.push({ available, reserved });
      const { body: listed } = await ledger.client.api(apiKey, 'GET', '/v1/payouts?limit=100');
      expect(listed.data).toHaveLength(made.length);
    }
    expect(rounds.filter((round) => round.reserved > round.available)).toEqual([]);
    expect(await booksDisagreementsInStack()).toEqual([]);
    // However their outcomes come, no business has more paid out or in flight than it was paid.
    expect(
      await ledger.books.query(`
        SELECT p.business_id FROM payouts p
        JOIN (SELECT business_id, sum(net_centavos) AS net FROM balance_transactions WHERE type = 'payment'
              GROUP BY 1) t USING (business_id)
        WHERE p.status <> 'failed' GROUP BY p.business_id, t.net HAVING sum(p.amount_centavos) > t.net`),
    ).toEqual([]);
  }, 300_000);
});
