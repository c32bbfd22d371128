import {
  FAILING_REFUND_REASON,
  newPublicId,
  pixFundsReturnRequested,
  type FundsReturnRequested,
  type FundsReturnSettled,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { publishAndAwaitHandling, waitFor, waitForParkedMessages } from '@gateway/testkit';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import { devolucaoIdFor } from '../src/application/shared/request-refund-devolucao';
import {
  type AdapterBed,
  anOpenPixCharge,
  chargeBecomes,
  eventsParkingQueue,
  openCharge,
  startAdapterAgainstSandboxPsp,
} from './support/adapter';

describe("pix.funds-return.requested.v1: the operator's return of held funds as an API Pix devolução", () => {
  let bed: AdapterBed;
  let payer: ApiPixClient;

  beforeAll(async () => {
    ({ bed, payer } = await startAdapterAgainstSandboxPsp('pix-adapter-funds-returns', async () => ({
      DEVOLUCAO_OVERDUE_SECONDS: '1',
      CALLBACK_POLL_INTERVAL_MS: '200',
    })));
  });

  afterAll(() => bed.close());

  /** A Pix received at the PSP: its endToEndId, as held funds name it. */
  async function receivedPix(amount: number): Promise<string> {
    const { txid } = await openCharge(bed, anOpenPixCharge({ amount_centavos: amount }));
    await payer.sandboxPay(txid, null);
    return (await chargeBecomes(bed, txid, 'paid')).paid_end_to_end_id!;
  }

  const returnOf = (
    endToEndId: string,
    amount: number,
    reason: string | null = null,
  ): FundsReturnRequested => {
    const fundsId = newPublicId('fund');
    return {
      return_id: `${fundsId}.return.1`,
      funds_id: fundsId,
      payment_id: newPublicId('pay'),
      rail_reference: endToEndId,
      instruction: null,
      amount_centavos: amount,
      amount_base_units: null,
      reason,
    };
  };

  const settledEvents = async (returnId: string): Promise<FundsReturnSettled[]> =>
    (
      await bed.service.dataSource.query(
        `SELECT envelope->'payload' AS payload FROM outbox
          WHERE name = 'pix.funds-return.settled.v1' AND envelope->'payload'->>'return_id' = $1 ORDER BY seq`,
        [returnId],
      )
    ).map((row: { payload: FundsReturnSettled }) => row.payload);

  const settled = (returnId: string): Promise<FundsReturnSettled> =>
    waitFor(async () => (await settledEvents(returnId))[0], {
      what: `return ${returnId} settled`,
      timeoutMs: 15_000,
    });

  test('a devolução of the Pix for the funds, its id derived from the return; delivered twice, asked once, settled the same way each time it is told', async () => {
    const endToEndId = await receivedPix(4_200);
    const request = returnOf(endToEndId, 4_200, 'Pago após o vencimento');
    await bed.client.publish(pixFundsReturnRequested, request);
    await bed.client.publish(pixFundsReturnRequested, request);

    expect(await settled(request.return_id)).toEqual({
      return_id: request.return_id,
      funds_id: request.funds_id,
      outcome: 'succeeded',
      external_id: devolucaoIdFor(request.return_id),
      failure_reason: null,
    });
    const pix = await payer.getReceivedPix(endToEndId);
    expect(pix.devolucoes).toEqual([
      expect.objectContaining({ id: devolucaoIdFor(request.return_id), valor: '42.00', status: 'DEVOLVIDO' }),
    ]);
    // Asked again after it settled (the payment service's resend: the outcome it never got): nothing asked of the
    // PSP, the same outcome reported again.
    const before = await settledEvents(request.return_id);
    await publishAndAwaitHandling(bed.env.config, pixFundsReturnRequested, request);
    const after = await settledEvents(request.return_id);
    expect(after).toHaveLength(before.length + 1);
    expect(new Set(after.map((e) => JSON.stringify(e))).size).toBe(1);
    expect((await payer.getReceivedPix(endToEndId)).devolucoes).toHaveLength(1);
  });

  test('a devolução the PSP does not carry out settles the return failed with its reason', async () => {
    const endToEndId = await receivedPix(1_500);
    const request = returnOf(endToEndId, 1_500, FAILING_REFUND_REASON);
    await bed.client.publish(pixFundsReturnRequested, request);
    expect(await settled(request.return_id)).toMatchObject({
      outcome: 'failed',
      failure_reason: expect.stringContaining(FAILING_REFUND_REASON),
    });
  });

  test('a poison return request is parked at once, never retried', async () => {
    const request = returnOf(await receivedPix(700), 700);
    const envelope = createEnvelope(pixFundsReturnRequested, request);
    await bed.client.publishEnvelope(
      { ...envelope, payload: { ...request, amount_centavos: 'muito' } } as never,
      {},
    );
    const parked = await waitForParkedMessages(eventsParkingQueue(bed), 'the parked return request');
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringMatching(/amount_centavos/) }),
    ]);
  });

  test('after losing its broker connection the adapter still carries returns out', async () => {
    const endToEndId = await receivedPix(900);
    bed.service.broker.dropConnectionForTesting();
    const request = returnOf(endToEndId, 900);
    await bed.client.publish(pixFundsReturnRequested, request);
    expect((await settled(request.return_id)).outcome).toBe('succeeded');
  });
});
