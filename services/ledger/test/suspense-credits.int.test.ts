import {
  createPayout,
  fundsAssigned,
  fundsReceived,
  fundsReturned,
  getBalance,
  listBalanceTransactions,
  newPublicId,
  setPayoutAccount,
  type Balance,
  type FundsReceived,
  type MessageDefinition,
} from '@gateway/contracts';
import { publishAndAwaitHandling, waitFor } from '@gateway/testkit';
import { booksDisagreements } from './support/books';
import { ledgerServiceForTheseTests } from './support/ledger-service';

// Money credited to a business out of suspense (returned by hand, assigned by the operator) is credited as a payment
// of its rail: its net pending until the rail's settlement delay is over, its fee to the platform.

const DELAY_SECONDS = 3;
const CNPJ = '12345678000195';

const tokensReceived = (): FundsReceived => {
  const fundsId = newPublicId('fund');
  return {
    event_id: newPublicId('evt'),
    occurred_at: new Date().toISOString(),
    funds_id: fundsId,
    money_key: `funds:${fundsId}`,
    kind: 'late',
    rail: 'crypto',
    payment_id: newPublicId('pay'),
    business_id: newPublicId('biz'),
    amount_centavos: 5_000,
    amount_base_units: '9000000',
    token: 'usdc',
    rail_reference: `sig${fundsId.slice(5)}`,
  };
};

describe('money credited out of suspense waits and pays its fee as a payment does', () => {
  const bed = ledgerServiceForTheseTests('ledger-suspense-credits', {
    SETTLEMENT_DELAY_PIX: DELAY_SECONDS,
    SETTLEMENT_DELAY_CRYPTO: DELAY_SECONDS,
  });

  const post = <P>(definition: MessageDefinition<P>, payload: P, messageId?: string) =>
    publishAndAwaitHandling(bed.env.config, definition, payload, { messageId });
  const balanceOf = async (businessId: string): Promise<Balance> => {
    const reply = await bed.request(getBalance, { business_id: businessId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };
  const transactionsOf = async (businessId: string) => {
    const reply = await bed.request(listBalanceTransactions, { business_id: businessId, limit: 100 });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result.data;
  };

  test.each([
    ['returned by hand', 'returned' as const],
    ['assigned by the operator', 'assigned' as const],
  ])(
    'tokens %s: pending less the fee, no payout before available_on, then available once',
    async (_, way) => {
      const received = tokensReceived();
      const businessId = received.business_id!;
      await bed.request(setPayoutAccount, {
        business_id: businessId,
        pix_key: CNPJ,
        pix_key_type: 'cnpj',
        holder_document: CNPJ,
      });
      await post(fundsReceived, received);
      const occurredAt = new Date();
      const out = {
        event_id: newPublicId('evt'),
        occurred_at: occurredAt.toISOString(),
        funds_id: received.funds_id,
        money_key: received.money_key,
        rail: received.rail,
        payment_id: received.payment_id,
        business_id: businessId,
        fee_centavos: 75,
      };
      const deliver = () =>
        way === 'returned'
          ? post(fundsReturned, { ...out, returned_by: 'manual' })
          : post(fundsAssigned, out);

      await deliver();
      await deliver();

      expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 0, pending_centavos: 4_925 });
      const availableOn = new Date(occurredAt.getTime() + DELAY_SECONDS * 1000).toISOString();
      expect(await transactionsOf(businessId)).toEqual([
        expect.objectContaining({
          type: 'adjustment',
          source_id: received.funds_id,
          amount_centavos: 5_000,
          fee_centavos: 75,
          net_centavos: 4_925,
          status: 'pending',
          available_on: availableOn,
        }),
      ]);
      const [feeRevenue] = await bed.sql<{ fee: string }>(
        `SELECT -sum(e.amount_centavos) AS fee FROM entries e JOIN journals j ON j.id = e.journal_id
          WHERE j.cause_key = $1 AND e.account = 'fee_revenue'`,
        [`funds:out:${received.money_key}`],
      );
      expect(Number(feeRevenue!.fee)).toBe(75);
      // Not spendable before available_on: a payout of it is refused.
      const early = await bed.request(createPayout, { business_id: businessId, amount_centavos: 4_925 });
      expect(early.ok ? 'paid out' : early.error.code).toBe('INSUFFICIENT_BALANCE');

      await waitFor(async () => (await balanceOf(businessId)).available_centavos === 4_925, {
        what: 'the credit settled at available_on',
        timeoutMs: 15_000,
      });
      expect(Date.now()).toBeGreaterThanOrEqual(occurredAt.getTime() + DELAY_SECONDS * 1000);
      expect(await balanceOf(businessId)).toMatchObject({ pending_centavos: 0 });
      expect(await transactionsOf(businessId)).toEqual([
        expect.objectContaining({ source_id: received.funds_id, status: 'available' }),
      ]);
      expect(
        await bed.sql(`SELECT 1 FROM journals WHERE cause_key = $1`, [`settle:${received.funds_id}`]),
      ).toHaveLength(1);
      expect(await booksDisagreements((text) => bed.sql(text))).toEqual([]);
    },
  );
});
