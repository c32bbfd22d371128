import {
  createPayout,
  getBalance,
  newPublicId,
  setPayoutAccount,
  paymentConfirmed,
  pixPayoutSettled,
  refundSucceeded,
  createReservation,
  refundFailed,
  releaseReservation,
} from '@gateway/contracts';
import {
  aPaymentEvent,
  aRefundEvent,
  poisonCase,
  poisonedEnvelope,
  publishAndAwaitParking,
  takeParkedMessages,
  waitFor,
} from '@gateway/testkit';
import { ledgerServiceForTheseTests } from './support/ledger-service';

describe('the events the ledger consumes: poison messages and a lost broker connection', () => {
  const bed = ledgerServiceForTheseTests('ledger-delivery');

  const balanceOf = async (businessId: string) => {
    const reply = await bed.request(getBalance, { business_id: businessId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };
  const journals = async () =>
    Number((await bed.sql<{ n: string }>(`SELECT count(*) AS n FROM journals`))[0]!.n);

  test.each([
    poisonCase(paymentConfirmed, aPaymentEvent({ status: 'paid' })),
    poisonCase(refundSucceeded, aRefundEvent({ status: 'succeeded' })),
    poisonCase(pixPayoutSettled, {
      payout_id: newPublicId('po'),
      outcome: 'paid',
      end_to_end_id: 'E00000000202611291200abcdefghijk',
      failure_reason: null,
      settled_at: new Date().toISOString(),
    }),
    poisonCase(refundFailed, aRefundEvent({ status: 'failed' })),
  ])(
    'a poison %s is parked and posts nothing; the events behind it are posted',
    async (_name, definition, payload) => {
      const before = await journals();
      // A field its contract names, retyped (a payout's settlement names no business).
      const poison = 'business_id' in payload ? { business_id: 42 } : { payout_id: 42 };
      const envelope = poisonedEnvelope(definition, payload, poison);
      const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'ledger', 'events', envelope);
      expect(parked).toEqual([expect.objectContaining({ messageId: envelope.id, type: definition.name })]);
      expect(await journals()).toBe(before);

      const businessId = newPublicId('biz');
      await bed.confirm(
        aPaymentEvent({ business_id: businessId, status: 'paid', amount_centavos: 500, fee_centavos: 5 }),
      );
      await waitFor(async () => (await balanceOf(businessId)).available_centavos === 495, {
        what: 'the next payment posted',
      });
      expect(await takeParkedMessages(`${bed.env.config.AMQP_PREFIX}ledger.events.parking`)).toEqual([]);
    },
  );

  test('after the service loses its broker connection, events published meanwhile are posted', async () => {
    const businessId = newPublicId('biz');
    const payment = aPaymentEvent({
      business_id: businessId,
      status: 'paid',
      amount_centavos: 3_000,
      fee_centavos: 30,
    });
    bed.service.broker.dropConnectionForTesting();
    await bed.client.publish(paymentConfirmed, payment);
    await bed.client.publish(
      refundSucceeded,
      aRefundEvent({
        business_id: businessId,
        payment_id: payment.payment.payment_id,
        status: 'succeeded',
        amount_centavos: 1_000,
      }),
    );
    await waitFor(
      async () => {
        const balance = await balanceOf(businessId).catch(() => undefined);
        return balance?.available_centavos === 1_970 && balance.pending_centavos === 0;
      },
      { timeoutMs: 15_000, what: 'both events posted after reconnect' },
    );
  });

  test('after the service loses its broker connection, a payout outcome published meanwhile is posted', async () => {
    const businessId = newPublicId('biz');
    const cpf = '52998224725';
    const account = await bed.request(setPayoutAccount, {
      business_id: businessId,
      pix_key: cpf,
      pix_key_type: 'cpf',
      holder_document: cpf,
    });
    expect(account.ok).toBe(true);
    await bed.confirm(
      aPaymentEvent({ business_id: businessId, status: 'paid', amount_centavos: 2_000, fee_centavos: 0 }),
    );
    await waitFor(async () => (await balanceOf(businessId)).available_centavos === 2_000, {
      what: 'the payment settled',
    });
    const payout = await bed.request(createPayout, { business_id: businessId, amount_centavos: 1_500 });
    if (!payout.ok) throw new Error(JSON.stringify(payout.error));
    bed.service.broker.dropConnectionForTesting();
    await bed.client.publish(pixPayoutSettled, {
      payout_id: payout.result.payout_id,
      outcome: 'failed',
      end_to_end_id: null,
      failure_reason: 'Chave inexistente',
      settled_at: new Date().toISOString(),
    });
    await waitFor(
      async () => {
        const balance = await balanceOf(businessId).catch(() => undefined);
        return balance?.available_centavos === 2_000 && balance.reserved_centavos === 0;
      },
      { timeoutMs: 15_000, what: 'the failed payout posted after reconnect' },
    );
  });

  test.each([
    poisonCase(createReservation, {
      reservation_id: newPublicId('ref'),
      business_id: newPublicId('biz'),
      payment_id: newPublicId('pay'),
      amount_centavos: 100,
    }),
    poisonCase(releaseReservation, { reservation_id: newPublicId('ref') }),
  ])('a poison %s command is parked and reserves nothing', async (_name, definition, payload) => {
    const poison = 'amount_centavos' in payload ? { amount_centavos: 'all of it' } : { reservation_id: 42 };
    const envelope = poisonedEnvelope(definition, payload, poison);
    const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'ledger', 'commands', envelope);
    expect(parked).toEqual([expect.objectContaining({ messageId: envelope.id, type: definition.name })]);
    expect(
      await bed.sql(`SELECT 1 FROM reservations WHERE id = $1`, [
        (payload as { reservation_id: string }).reservation_id,
      ]),
    ).toEqual([]);
  });

  test('after the service loses its broker connection, a reservation is answered and made', async () => {
    const businessId = newPublicId('biz');
    const payment = aPaymentEvent({
      business_id: businessId,
      status: 'paid',
      amount_centavos: 2_000,
      fee_centavos: 20,
    });
    await bed.confirm(payment);
    bed.service.broker.dropConnectionForTesting();
    const reservationId = newPublicId('ref');
    const reply = await waitFor(
      async () => {
        const answer = await bed.request(createReservation, {
          reservation_id: reservationId,
          business_id: businessId,
          payment_id: payment.payment.payment_id,
          amount_centavos: 1_000,
        });
        return answer.ok ? answer : undefined;
      },
      { timeoutMs: 15_000, what: 'the reservation answered after reconnect' },
    );
    expect(reply.result).toEqual({ reservation_id: reservationId, outcome: 'reserved' });
    // Settled at once (no delay): what the reservation left of the payment's net becomes available.
    await waitFor(
      async () => {
        const balance = await balanceOf(businessId);
        return (
          balance.available_centavos === 980 &&
          balance.reserved_centavos === 1_000 &&
          balance.pending_centavos === 0
        );
      },
      { what: 'the reservation and the rest available' },
    );
  });
});
