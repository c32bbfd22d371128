import {
  FAILING_REFUND_REASON,
  cryptoFundsReturnRequested,
  cryptoFundsReturnSettled,
  cryptoRefundRequested,
  cryptoRefundSettled,
  newPublicId,
  type FundsReturnRequested,
  type FundsReturnSettled,
  type RefundSettled,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { aRefundRequest, publishAndAwaitHandling, waitFor } from '@gateway/testkit';
import { WatcherHarness } from './support/watcher';

describe("crypto.funds-return.requested.v1: the operator's return of held tokens on the local chain", () => {
  const harness = WatcherHarness.forTheseTests();
  const returns: FundsReturnSettled[] = [];
  const refunds: RefundSettled[] = [];
  const payer = () => harness.localnet.payer.publicKey;

  beforeAll(async () => {
    // A queue under a service name the watcher does not use, standing in for the payment service.
    await harness.client
      .handlers('payment')
      .handle(cryptoFundsReturnSettled, async (payload) => {
        returns.push(payload);
      })
      .handle(cryptoRefundSettled, async (payload) => {
        refunds.push(payload);
      })
      .consume();
  });

  const returnOf = (
    paid: { payment_id: string; signature: string },
    baseUnits: string,
    reason: string | null = null,
  ): FundsReturnRequested => {
    const fundsId = newPublicId('fund');
    return {
      return_id: `${fundsId}.return.1`,
      funds_id: fundsId,
      payment_id: paid.payment_id,
      rail_reference: paid.signature,
      instruction: null,
      amount_centavos: null,
      amount_base_units: baseUnits,
      reason,
    };
  };

  const settled = (returnId: string) =>
    waitFor(() => returns.find((event) => event.return_id === returnId), {
      timeoutMs: 20_000,
      what: `the settlement of ${returnId}`,
    });

  /** A request paid in full, then 250 000 base units more sent to its reference: late money the payment service holds. */
  const paidThenLate = async () => {
    const paid = await harness.paidRequest();
    const signature = await harness.pay(paid.reference, 250_000n);
    await waitFor(
      async () =>
        (
          await harness.service.dataSource.query('SELECT 1 FROM transfers WHERE signature = $1', [signature])
        )[0],
      { what: 'the late transfer recorded' },
    );
    return { ...paid, signature };
  };

  test('the tokens go back to the owner of the paying account, once although asked twice, confirmed on chain; the payment can still be refunded in full', async () => {
    const paid = await paidThenLate();
    const before = await harness.tokenBalance(payer());
    const request = returnOf(paid, '250000');
    await harness.client.publish(cryptoFundsReturnRequested, request);
    await harness.client.publish(cryptoFundsReturnRequested, request);
    expect(await settled(request.return_id)).toEqual({
      return_id: request.return_id,
      funds_id: request.funds_id,
      outcome: 'succeeded',
      external_id: expect.any(String),
      failure_reason: null,
    });
    expect(await harness.tokenBalance(payer())).toBe(before + 250_000n);
    // Asked again once it settled (the payment service's resend: the outcome it never got): nothing sent again, the
    // same outcome reported again.
    const reportedBefore = returns.filter((event) => event.return_id === request.return_id).length;
    await publishAndAwaitHandling(harness.bed.env.config, cryptoFundsReturnRequested, request);
    const reported = await waitFor(() => {
      const told = returns.filter((event) => event.return_id === request.return_id);
      return told.length > reportedBefore ? told : undefined;
    });
    expect(new Set(reported.map((e) => JSON.stringify(e))).size).toBe(1);
    const rows: Array<{ recipients: unknown }> = await harness.service.dataSource.query(
      'SELECT recipients FROM crypto_refunds WHERE funds_id = $1',
      [request.funds_id],
    );
    expect(rows).toEqual([{ recipients: [{ owner: payer().toBase58(), amount_base_units: '250000' }] }]);

    // What the operator returned is late money, not the payment's: its full refund is not counted short for it.
    const refund = aRefundRequest(
      { payment_id: paid.payment_id, amount_centavos: 10_000 },
      { amount_centavos: 10_000 },
    );
    await harness.client.publishEnvelope(createEnvelope(cryptoRefundRequested, refund), {});
    const refunded = await waitFor(() => refunds.find((event) => event.refund_id === refund.refund_id), {
      timeoutMs: 20_000,
      what: 'the full refund settled',
    });
    expect(refunded.outcome).toBe('succeeded');
  });

  test('a return the chain fails (the sandbox failing word) is reported failed with the reason; more than the transfer brought is refused', async () => {
    const paid = await harness.paidRequest();
    const failing = returnOf(paid, '1000', FAILING_REFUND_REASON);
    await harness.client.publish(cryptoFundsReturnRequested, failing);
    expect(await settled(failing.return_id)).toMatchObject({
      outcome: 'failed',
      failure_reason: expect.any(String),
    });

    const tooMuch = returnOf(paid, (BigInt(paid.amount_base_units) + 1n).toString());
    await harness.client.publish(cryptoFundsReturnRequested, tooMuch);
    expect(await settled(tooMuch.return_id)).toMatchObject({
      outcome: 'failed',
      external_id: null,
      failure_reason: expect.stringContaining('não corresponde'),
    });
  });
});
