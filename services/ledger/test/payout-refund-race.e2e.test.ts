import { newPublicId } from '@gateway/contracts';
import { waitFor, type ApiAnswer } from '@gateway/testkit';
import { booksDisagreements } from './support/books';
import {
  businessWithMoney as sharedBusinessWithMoney,
  balanceThroughApi,
  type CentavosBalance,
  useLedgerStack,
} from './support/stack-books';

const ROUNDS = 25;

/**
 * A payout and a refund racing for the same money, through the whole stack as `npm start` runs it: the business has
 * one paid PIX payment (no fee), and both are asked for at once, many rounds, sometimes more than it holds together,
 * sometimes not. They meet the same balance row, so never both succeed when together they exceed what was there,
 * nothing is ever reserved beyond what was available, and the books balance after every round.
 */
describe('a payout racing a refund for the same money', () => {
  const ledger = useLedgerStack({ ADMIN_RATE_LIMIT_PER_MINUTE: '100000' });

  const businessWithMoney = (amount: number) =>
    sharedBusinessWithMoney(ledger.client, `Corrida ${newPublicId('n').slice(-6)}`, amount);

  const finalStatus = (apiKey: string, path: string) =>
    waitFor(
      async () => {
        const { body } = await ledger.client.api(apiKey, 'GET', path);
        return ['succeeded', 'failed', 'paid'].includes(body.status) ? (body.status as string) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: `${path} final` },
    );

  test(`${ROUNDS} rounds: never both when together they exceed the money, never reserved beyond it, the books balanced`, async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const money = 5_000 + round * 137;
      // Two rounds in five fit together; the others ask for more than there is between them, each fitting alone.
      const fitTogether = round % 5 < 2;
      const payout = fitTogether ? Math.floor(money * 0.4) : Math.floor(money * 0.7);
      const refund = fitTogether ? Math.floor(money * 0.5) : Math.floor(money * 0.6);
      const { apiKey, businessId, paymentId } = await businessWithMoney(money);

      // The balance is read while both are in flight: what is reserved is never more than what was there.
      const seen: CentavosBalance[] = [];
      let racing = true;
      const watcher = (async () => {
        while (racing) seen.push(await balanceThroughApi(ledger.client, apiKey));
      })();
      const [payoutAnswer, refundAnswer] = await (round % 2 === 0
        ? Promise.all([
            ledger.client.api(
              apiKey,
              'POST',
              '/v1/payouts',
              { amount: payout },
              { 'Idempotency-Key': `p${round}` },
            ),
            ledger.client.api(apiKey, 'POST', `/v1/payments/${paymentId}/refunds`, { amount: refund }),
          ])
        : Promise.all([
            ledger.client.api(apiKey, 'POST', `/v1/payments/${paymentId}/refunds`, { amount: refund }),
            ledger.client.api(
              apiKey,
              'POST',
              '/v1/payouts',
              { amount: payout },
              { 'Idempotency-Key': `p${round}` },
            ),
          ]).then(([r, p]) => [p, r] as [ApiAnswer, ApiAnswer]));
      const won = (answer: ApiAnswer) => {
        if (answer.status === 201) return true;
        expect([answer.status, answer.body.error?.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
        return false;
      };
      const payoutWon = won(payoutAnswer);
      const refundWon = won(refundAnswer);
      seen.push(await balanceThroughApi(ledger.client, apiKey));
      racing = false;
      await watcher;

      if (fitTogether) expect([payoutWon, refundWon]).toEqual([true, true]);
      // Each fits alone: one of them always gets the money, never both.
      else expect([payoutWon, refundWon].filter(Boolean)).toHaveLength(1);
      for (const balance of seen) {
        expect(balance.reserved).toBeLessThanOrEqual(money);
        expect(balance.available).toBeGreaterThanOrEqual(0);
        expect(balance.available + balance.pending + balance.reserved + balance.blocked).toBeLessThanOrEqual(
          money,
        );
      }

      // Whatever won is carried out; the books then hold exactly what is left.
      let spent = 0;
      if (payoutWon) {
        expect(await finalStatus(apiKey, `/v1/payouts/${payoutAnswer.body.payout_id}`)).toBe('paid');
        spent += payout;
      }
      if (refundWon) {
        expect(await finalStatus(apiKey, `/v1/refunds/${refundAnswer.body.refund_id}`)).toBe('succeeded');
        spent += refund;
      }
      outcomes.push(payoutWon && refundWon ? 'both' : payoutWon ? 'payout' : 'refund');
      const expected = { available: money - spent, pending: 0, reserved: 0, blocked: 0 };
      let after: CentavosBalance | undefined;
      await waitFor(
        async () => {
          after = await balanceThroughApi(ledger.client, apiKey);
          return JSON.stringify(after) === JSON.stringify(expected);
        },
        { timeoutMs: 30_000, intervalMs: 100, what: 'the balance after the round' },
      ).catch(() => undefined);
      expect({ businessId, round, balance: after }).toEqual({ businessId, round, balance: expected });
      expect(await booksDisagreements((text) => ledger.books.query(text))).toEqual([]);
    }
    // Which side won each round, for reading a run (the refund goes through the payment service first, so it is
    // usually the slower one; which wins is not the point, that never both do is).
    console.log(`payout racing a refund, winners by round: ${outcomes.join(' ')}`);
  }, 300_000);
});
