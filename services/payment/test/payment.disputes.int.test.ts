import {
  createRefund,
  getDispute,
  listDisputes,
  newPublicId,
  pixMedReported,
  pixRefundSettled,
  submitDisputeDefence,
  type DisputeRecord,
  type PixMedReported,
} from '@gateway/contracts';
import { paymentServiceForTheseTests } from './support/harness';
import { aRefundSettlement, anEndToEndId } from './support/rail-events';

describe('disputes (MED): opened and closed from the PIX adapter’s reports, once, within the payment', () => {
  const h = paymentServiceForTheseTests('payment-disputes');

  const aMed = (paymentId: string, overrides: Partial<PixMedReported> = {}): PixMedReported => ({
    payment_id: paymentId,
    end_to_end_id: anEndToEndId(),
    devolucao_id: newPublicId('d')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 35),
    amount_centavos: 10000,
    natureza: 'MED_FRAUDE',
    status: 'EM_PROCESSAMENTO',
    motivo: null,
    ...overrides,
  });

  const report = async (med: PixMedReported, messageId?: string): Promise<void> => {
    if (messageId === undefined) await h.waitForHandled([await h.publishEvent(pixMedReported, med)]);
    else {
      await h.client.publish(pixMedReported, med, { messageId });
      await h.waitForHandled([messageId]);
    }
  };

  const disputeEvents = async (paymentId: string) => {
    const rows: Array<{ name: string; dispute: DisputeRecord }> = await h.service.dataSource.query(
      `SELECT name, envelope->'payload'->'dispute' AS dispute FROM outbox
        WHERE name LIKE 'dispute.%' AND envelope->'payload'->'dispute'->>'payment_id' = $1 ORDER BY seq`,
      [paymentId],
    );
    return rows;
  };

  const disputesOf = async (businessId: string) => {
    const reply = await h.request(listDisputes, { business_id: businessId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result.data;
  };

  test('a MED opens a dispute (dispute.created), its DEVOLVIDO loses it (dispute.closed); repeats change nothing', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 10000);
    const med = aMed(paymentId, { amount_centavos: 4000 });
    const messageId = newPublicId('msg');
    await report(med, messageId);
    // The same message again (inbox), and the same report under another message (the adapter's poll, a callback).
    await report(med, messageId);
    await report(med);
    const [opened] = await disputesOf(businessId);
    expect(await disputesOf(businessId)).toHaveLength(1);
    expect(opened).toMatchObject({
      dispute_id: expect.stringMatching(/^dsp_/),
      payment_id: paymentId,
      business_id: businessId,
      method: 'pix',
      amount_centavos: 4000,
      status: 'open',
      reason: 'MED_FRAUDE',
    });
    expect(await h.request(getDispute, { business_id: businessId, dispute_id: opened!.dispute_id })).toEqual({
      ok: true,
      result: opened,
    });
    // Another business never sees it.
    expect(
      await h.request(getDispute, { business_id: await h.newBusiness(), dispute_id: opened!.dispute_id }),
    ).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // What the MED claims can no longer be refunded: 6000 is left.
    expect(
      await h.request(createRefund, {
        business_id: businessId,
        payment_id: paymentId,
        amount_centavos: 6001,
      }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_AMOUNT' } });

    await report({ ...med, status: 'DEVOLVIDO' });
    await report({ ...med, status: 'DEVOLVIDO' });
    // A closed dispute never changes its outcome.
    await report({ ...med, status: 'NAO_REALIZADO', motivo: 'tarde demais' });
    const events = await disputeEvents(paymentId);
    expect(events.map((event) => [event.name, event.dispute.status])).toEqual([
      ['dispute.created.v1', 'open'],
      ['dispute.closed.v1', 'lost'],
    ]);
    expect(await disputesOf(businessId)).toEqual([
      expect.objectContaining({ dispute_id: opened!.dispute_id, status: 'lost' }),
    ]);
  });

  test('a defence goes to the rail once and is recorded; refused for another business, twice, closed, or where the rail takes none', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 10000);
    const med = aMed(paymentId, { amount_centavos: 3000 });
    await report(med);
    const [opened] = await disputesOf(businessId);
    const command = { business_id: businessId, dispute_id: opened!.dispute_id, text: 'Pedido entregue.' };
    const defend = (overrides: Partial<typeof command> = {}, messageId?: string) =>
      h.request(submitDisputeDefence, { ...command, ...overrides }, messageId ? { messageId } : {});

    // The rail's refusal passes through; a rail that does not answer is unavailable; neither records anything.
    h.rails.refusal = 'DEFENCE_NOT_SUPPORTED';
    try {
      expect(await defend()).toMatchObject({ ok: false, error: { code: 'DEFENCE_NOT_SUPPORTED' } });
    } finally {
      h.rails.refusal = undefined;
    }
    h.rails.silent = true;
    try {
      expect(await defend()).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    } finally {
      h.rails.silent = false;
    }
    expect((await disputesOf(businessId))[0]!.defence_submitted_at).toBeNull();

    const messageId = newPublicId('msg');
    const first = await defend({}, messageId);
    expect(first).toMatchObject({
      ok: true,
      result: { dispute_id: opened!.dispute_id, status: 'open', defence_submitted_at: expect.any(String) },
    });
    // The same command again (a redelivery) answers the same, without asking the rail again.
    const calls = h.rails.callsOf('pix.med.defence.submit.v1').length;
    expect(await defend({}, messageId)).toEqual(first);
    expect(h.rails.callsOf('pix.med.defence.submit.v1')).toHaveLength(calls);
    expect(h.rails.callsOf('pix.med.defence.submit.v1').at(-1)!.payload).toEqual({
      payment_id: paymentId,
      end_to_end_id: med.end_to_end_id,
      devolucao_id: med.devolucao_id,
      text: 'Pedido entregue.',
    });
    expect((await disputesOf(businessId))[0]).toEqual(first.ok && first.result);
    // Another defence is refused; so is another business's, and a closed dispute's.
    expect(await defend()).toMatchObject({ ok: false, error: { code: 'INVALID_STATUS' } });
    expect(await defend({ business_id: await h.newBusiness() })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    const other = aMed(paymentId, { amount_centavos: 1000 });
    await report(other);
    await report({ ...other, status: 'NAO_REALIZADO' });
    const won = (await disputesOf(businessId)).find((dispute) => dispute.status === 'won')!;
    expect(await defend({ dispute_id: won.dispute_id })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS' },
    });
    // The database keeps a defence once, and only on an open dispute.
    await expect(
      h.service.dataSource.query(`UPDATE disputes SET defence_submitted_at = NULL WHERE id = $1`, [
        opened!.dispute_id,
      ]),
    ).rejects.toThrow(/stays submitted/);
    await expect(
      h.service.dataSource.query(`UPDATE disputes SET defence_submitted_at = now() WHERE id = $1`, [
        won.dispute_id,
      ]),
    ).rejects.toThrow();
  });

  test('NAO_REALIZADO wins the dispute and frees its amount; a MED first seen final opens and closes at once', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 10000);
    const med = aMed(paymentId, { amount_centavos: 10000, natureza: 'MED_OPERACIONAL' });
    await report(med);
    await report({ ...med, status: 'NAO_REALIZADO', motivo: 'análise a favor do recebedor' });
    // Its callback lost, the next MED is first seen DEVOLVIDO: created and closed together.
    const late = aMed(paymentId, { amount_centavos: 2500, status: 'DEVOLVIDO' });
    await report(late);
    expect((await disputeEvents(paymentId)).map((event) => [event.name, event.dispute.status])).toEqual([
      ['dispute.created.v1', 'open'],
      ['dispute.closed.v1', 'won'],
      ['dispute.created.v1', 'open'],
      ['dispute.closed.v1', 'lost'],
    ]);
    const { payment } = await h.readPayment(businessId, paymentId);
    expect(payment.status).toBe('paid');
    // The won 10000 is refundable again, less the lost 2500.
    expect(
      await h.request(createRefund, {
        business_id: businessId,
        payment_id: paymentId,
        amount_centavos: 7501,
      }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_AMOUNT' } });
  });

  test('a MED for no payment of ours, larger than the payment, or on a payment already refunded opens nothing', async () => {
    const businessId = await h.newBusiness();
    await report(aMed(newPublicId('pay')));
    const paymentId = await h.paidPixPayment(businessId, 5000);
    await report(aMed(paymentId, { amount_centavos: 5001 }));
    const refunded = await h.paidPixPayment(businessId, 3000);
    const refund = await h.request(createRefund, { business_id: businessId, payment_id: refunded });
    if (!refund.ok) throw new Error(JSON.stringify(refund.error));
    await h.waitForHandled([await h.publishEvent(pixRefundSettled, aRefundSettlement(refund.result))]);
    await report(aMed(refunded, { amount_centavos: 1 }));
    // Each was handled (its inbox row committed), with nothing to show for it.
    expect(await disputesOf(businessId)).toEqual([]);
    expect(await disputeEvents(paymentId)).toEqual([]);
  });

  test('a report its contract refuses is parked, never a dispute', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    const { parked } = await h.publishPoisoned('events', pixMedReported, aMed(paymentId), {
      natureza: 'ORIGINAL',
    });
    expect(parked).toHaveLength(1);
    expect(await disputesOf(businessId)).toEqual([]);
  });

  test('the database keeps a dispute open -> won | lost, within its paid payment', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 10000);
    const med = aMed(paymentId, { amount_centavos: 1000 });
    await report(med);
    const [dispute] = await disputesOf(businessId);
    const sql = (text: string, parameters: unknown[]) => h.service.dataSource.query(text, parameters);
    const insert = (status: string, amount: number) =>
      sql(
        `INSERT INTO disputes (id, payment_id, business_id, method, external_id, amount_centavos, status, reason,
           created_at, updated_at) VALUES ($1, $2, $3, 'pix', $4, $5, $6, NULL, now(), now())`,
        [newPublicId('dsp'), paymentId, businessId, newPublicId('x'), amount, status],
      );
    await expect(insert('won', 10)).rejects.toThrow(/starts open/);
    await expect(insert('open', 10001)).rejects.toThrow(/at most/);
    await expect(
      sql(`UPDATE disputes SET amount_centavos = 999 WHERE id = $1`, [dispute!.dispute_id]),
    ).rejects.toThrow(/cannot change/);
    await report({ ...med, status: 'DEVOLVIDO' });
    await expect(
      sql(`UPDATE disputes SET status = 'won' WHERE id = $1`, [dispute!.dispute_id]),
    ).rejects.toThrow();
  });

  test('after losing its broker connection the service opens disputes again', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    h.service.broker.dropConnectionForTesting();
    await report(aMed(paymentId, { amount_centavos: 500 }));
    expect(await disputesOf(businessId)).toEqual([
      expect.objectContaining({ status: 'open', amount_centavos: 500 }),
    ]);
  });
});
