import {
  getCheckoutSessionStatus,
  newPublicId,
  startCheckoutSession,
  type Checkout,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { publishAndAwaitParking, untilAnsweredOk } from '@gateway/testkit';
import { checkoutWithPaymentsForTheseTests, sessionStartCommand } from './support/checkout-service';

describe('checkout sessions', () => {
  const bed = checkoutWithPaymentsForTheseTests('checkout-session');

  const sessionsOf = async (
    checkoutId: string,
  ): Promise<Array<{ id: string; payment_id: string; status: string }>> =>
    bed.service.dataSource.query('SELECT id, payment_id, status FROM sessions WHERE checkout_id = $1', [
      checkoutId,
    ]);

  describe('checkout.session.start.v1', () => {
    test('a PIX start asks the payment service for the product price and records an initiated session', async () => {
      const checkout = await bed.newCheckout();
      const reply = await bed.startSession(sessionStartCommand(checkout));

      expect(reply).toEqual({
        ok: true,
        result: {
          session_id: expect.stringMatching(/^sess_[A-Za-z0-9_-]{24}$/),
          status: 'initiated',
          payment: expect.objectContaining({
            payment: expect.objectContaining({ status: 'processing', amount_centavos: 4990 }),
            pix: expect.objectContaining({ copia_e_cola: expect.any(String) }),
          }),
        },
      });
      expect(bed.payments.requestsFor(checkout.business_id)).toEqual([
        {
          business_id: checkout.business_id,
          business_name: 'Estúdio Som',
          method: 'pix',
          amount_centavos: 4990,
          metadata: JSON.stringify({ checkout_id: checkout.checkout_id, product_id: checkout.product_id }),
          token: null,
        },
      ]);
      const result = reply.ok ? reply.result : undefined;
      expect(await sessionsOf(checkout.checkout_id)).toEqual([
        { id: result?.session_id, payment_id: result?.payment.payment.payment_id, status: 'initiated' },
      ]);
    });

    test('a crypto start passes the chosen token and returns the crypto instructions', async () => {
      const checkout = await bed.newCheckout();
      const reply = await bed.startSession(
        sessionStartCommand(checkout, { method: 'crypto', token: 'usdt' }),
      );

      expect(reply).toEqual({
        ok: true,
        result: expect.objectContaining({
          payment: expect.objectContaining({ crypto: expect.objectContaining({ currency: 'usdt' }) }),
        }),
      });
      expect(bed.payments.requestsFor(checkout.business_id)).toEqual([
        expect.objectContaining({ method: 'crypto', token: 'usdt' }),
      ]);
    });

    test('when the payment service refuses (no fee rule), the same code and message come back and no session is recorded', async () => {
      const checkout = await bed.newCheckout();
      bed.payments.refuse(checkout.business_id, 'NO_FEE_RULE', 'Nenhuma regra de tarifa para o método pix.');
      const reply = await bed.startSession(sessionStartCommand(checkout));

      expect(reply).toEqual({
        ok: false,
        error: { code: 'NO_FEE_RULE', message: 'Nenhuma regra de tarifa para o método pix.' },
      });
      expect(await sessionsOf(checkout.checkout_id)).toEqual([]);
    });

    test('when the payment service does not answer in time, the start fails with SERVICE_UNAVAILABLE', async () => {
      const checkout = await bed.newCheckout();
      bed.payments.answerLate(checkout.business_id);
      const reply = await bed.startSession(sessionStartCommand(checkout));

      expect(reply).toEqual({
        ok: false,
        error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
      });
      expect(await sessionsOf(checkout.checkout_id)).toEqual([]);
    });

    test('an unknown or inactive checkout cannot start a session, and no payment is requested', async () => {
      const checkout = await bed.newCheckout();
      await bed.service.dataSource.query(`UPDATE checkouts SET status = 'inactive' WHERE id = $1`, [
        checkout.checkout_id,
      ]);
      const inactive = await bed.startSession(sessionStartCommand(checkout));
      const unknown = await bed.startSession(sessionStartCommand(checkout, { slug: 'slug-que-nao-existe' }));

      expect(inactive).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
      expect(unknown).toEqual(inactive);
      expect(bed.payments.requestsFor(checkout.business_id)).toEqual([]);
    });

    test('when the same start is delivered twice, one payment is requested and one session recorded', async () => {
      const checkout = await bed.newCheckout();
      const messageId = newPublicId('cmd');
      const first = await bed.startSession(sessionStartCommand(checkout), messageId);
      const second = await bed.startSession(sessionStartCommand(checkout), messageId);

      expect(first.ok).toBe(true);
      expect(second).toEqual(first);
      expect(bed.payments.distinctRequestIdsFor(checkout.business_id)).toHaveLength(1);
      expect(await sessionsOf(checkout.checkout_id)).toHaveLength(1);
    });

    test('two different starts on one checkout are two payments and two sessions', async () => {
      const checkout = await bed.newCheckout();
      const first = await bed.startSession(sessionStartCommand(checkout));
      const second = await bed.startSession(sessionStartCommand(checkout));

      expect(first.ok && second.ok).toBe(true);
      expect(bed.payments.distinctRequestIdsFor(checkout.business_id)).toHaveLength(2);
      expect(await sessionsOf(checkout.checkout_id)).toHaveLength(2);
    });
  });

  describe('checkout.session.status.v1', () => {
    const status = (slug: string, sessionId: string, messageId?: string) =>
      bed.request(getCheckoutSessionStatus, { slug, session_id: sessionId }, { messageId });

    const startedSession = async (checkout: Checkout): Promise<string> => {
      const reply = await bed.startSession(sessionStartCommand(checkout));
      if (!reply.ok) throw new Error(`session not started: ${reply.error.code}`);
      return reply.result.session_id;
    };

    test('an initiated session has no return url yet, and names its payment and business for the gateway', async () => {
      const checkout = await bed.newCheckout();
      const sessionId = await startedSession(checkout);
      const [session] = await sessionsOf(checkout.checkout_id);
      expect(session?.payment_id).toMatch(/^pay_/);

      expect(await status(checkout.slug, sessionId)).toEqual({
        ok: true,
        result: {
          status: 'initiated',
          return_url: null,
          payment_id: session?.payment_id,
          business_id: checkout.business_id,
        },
      });
    });

    test('a paid session sends the buyer to the return url; an expired one does not', async () => {
      const checkout = await bed.newCheckout({ return_url: 'https://loja.example.com/pedido/77' });
      const paid = await startedSession(checkout);
      const expired = await startedSession(checkout);
      await bed.service.dataSource.query(`UPDATE sessions SET status = 'paid' WHERE id = $1`, [paid]);
      await bed.service.dataSource.query(`UPDATE sessions SET status = 'expired' WHERE id = $1`, [expired]);

      expect(await status(checkout.slug, paid)).toEqual({
        ok: true,
        result: expect.objectContaining({ status: 'paid', return_url: 'https://loja.example.com/pedido/77' }),
      });
      expect(await status(checkout.slug, expired)).toEqual({
        ok: true,
        result: expect.objectContaining({ status: 'expired', return_url: null }),
      });
    });

    test('a session asked for under another checkout’s slug, or an unknown one, is NOT_FOUND', async () => {
      const checkout = await bed.newCheckout();
      const other = await bed.newCheckout();
      const sessionId = await startedSession(checkout);

      const wrongCheckout = await status(other.slug, sessionId);
      const unknown = await status(checkout.slug, newPublicId('sess'));
      expect(wrongCheckout).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
      expect(unknown).toEqual(wrongCheckout);
    });

    test('asking twice with one message id gives the same answer', async () => {
      const checkout = await bed.newCheckout();
      const sessionId = await startedSession(checkout);
      const messageId = newPublicId('cmd');

      const first = await status(checkout.slug, sessionId, messageId);
      const second = await status(checkout.slug, sessionId, messageId);
      expect(first.ok).toBe(true);
      expect(second).toEqual(first);
    });
  });

  test.each([
    [startCheckoutSession.name, { slug: 'x', business_name: 'Loja', method: 'boleto', token: null }],
    [getCheckoutSessionStatus.name, { slug: 'x' }],
  ])('a poison %s is parked at once and the commands behind it are still served', async (name, payload) => {
    const envelope = {
      ...createEnvelope(getCheckoutSessionStatus, { slug: 'x', session_id: 'y' }),
      name,
      payload,
    };
    const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'checkout', 'commands', envelope);
    expect(parked).toEqual([expect.objectContaining({ messageId: envelope.id, type: name })]);
    expect((await bed.startSession(sessionStartCommand(await bed.newCheckout()))).ok).toBe(true);
  });

  test('after the service loses its broker connection it reconnects, and a retried start still makes one payment', async () => {
    const checkout = await bed.newCheckout();
    bed.service.broker.dropConnectionForTesting();
    const messageId = newPublicId('cmd');
    const { result: reply } = await untilAnsweredOk(
      () => bed.request(startCheckoutSession, sessionStartCommand(checkout), { timeoutMs: 1500, messageId }),
      'a started session after reconnect',
    );
    expect(reply.status).toBe('initiated');
    expect(bed.payments.distinctRequestIdsFor(checkout.business_id)).toHaveLength(1);
    expect(await sessionsOf(checkout.checkout_id)).toHaveLength(1);
    const sessionStatus = await bed.request(getCheckoutSessionStatus, {
      slug: checkout.slug,
      session_id: reply.session_id,
    });
    expect(sessionStatus).toMatchObject({ ok: true, result: { status: 'initiated', return_url: null } });
  });
});
