import {
  checkRefundReservation,
  cancelPayment,
  createPayment,
  createRefund,
  getPayment,
  getRefund,
  listRefunds,
  newPublicId,
  paymentCreated,
  readPaymentEventLog,
  setFeeRule,
  simulatePayment,
  updatePayment,
  type CreatePayment,
  type SimulatePayment,
} from '@gateway/contracts';
import { poisonCase, untilAnsweredOk } from '@gateway/testkit';
import { aCreatePayment, paymentServiceForTheseTests } from './support/harness';

describe('payment service commands', () => {
  const h = paymentServiceForTheseTests('payment-cmd');

  const countPayments = async (businessId: string): Promise<number> =>
    (
      await h.service.dataSource.query('SELECT count(*)::int AS n FROM payments WHERE business_id = $1', [
        businessId,
      ])
    )[0].n;

  describe('payment.create.v1', () => {
    test('a crypto payment is created pending with the watcher instructions and its reference as external id', async () => {
      const businessId = await h.newBusiness();
      const view = await h.createPayment(businessId, {
        method: 'crypto',
        token: 'usdc',
        amount_centavos: 5000,
      });
      expect(view.payment).toMatchObject({ status: 'pending', method: 'crypto', fee_centavos: 75 + 10 });
      expect(view.crypto).toMatchObject({ network: 'solana', amount_base_units: '1000000', decimals: 6 });
      const open = h.rails.callsOf('crypto.request.open.v1').at(-1)!;
      expect(open.payload).toMatchObject({ payment_id: view.payment.payment_id, token: 'usdc' });
      expect(view.payment.external_id).toEqual(expect.any(String));
      expect(view.pix).toBeUndefined();
    });

    test('when the same create is delivered twice, one payment and one charge exist and both replies match', async () => {
      const businessId = await h.newBusiness();
      const messageId = newPublicId('cmd');
      const command = aCreatePayment(businessId);
      const first = await h.request(createPayment, command, { messageId });
      const second = await h.request(createPayment, command, { messageId });
      expect(second).toEqual(first);
      expect(await countPayments(businessId)).toBe(1);
      const opens = h.rails.callsOf('pix.charge.open.v1').filter((c) => c.messageId === `${messageId}:open`);
      expect(new Set(opens.map((c) => c.payload.payment_id)).size).toBe(1);
    });

    test('a rail that does not answer gives SERVICE_UNAVAILABLE with nothing visible; the retry reuses the charge', async () => {
      const businessId = await h.newBusiness();
      const messageId = newPublicId('cmd');
      const command = aCreatePayment(businessId);
      h.rails.silent = true;
      try {
        const reply = await h.request(createPayment, command, { messageId });
        expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) });
        expect(await countPayments(businessId)).toBe(0);
      } finally {
        h.rails.silent = false;
      }
      const retried = await h.request(createPayment, command, { messageId });
      if (!retried.ok) throw new Error(JSON.stringify(retried.error));
      const opens = h.rails.callsOf('pix.charge.open.v1').filter((c) => c.messageId === `${messageId}:open`);
      expect(opens.length).toBe(2);
      expect(opens.every((c) => c.payload.payment_id === retried.result.payment.payment_id)).toBe(true);
      expect(await countPayments(businessId)).toBe(1);
    });

    test('a rail refusing with a code its command does not declare gives INTERNAL_ERROR at once, not a SERVICE_UNAVAILABLE to retry for ever', async () => {
      const businessId = await h.newBusiness();
      h.rails.refusal = 'INVALID_STATUS';
      try {
        const started = Date.now();
        const reply = await h.request(createPayment, aCreatePayment(businessId));
        expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'INTERNAL_ERROR' }) });
        expect(Date.now() - started).toBeLessThan(1000);
        expect(await countPayments(businessId)).toBe(0);
      } finally {
        h.rails.refusal = undefined;
      }
    });

    test('a refusal the rail command declares (a due date the PSP refuses) reaches the caller as it is, nothing created', async () => {
      const businessId = await h.newBusiness();
      h.rails.refusal = 'INVALID_FIELDS';
      try {
        const reply = await h.request(createPayment, aCreatePayment(businessId));
        expect(reply).toEqual({
          ok: false,
          error: { code: 'INVALID_FIELDS', message: 'Recusado pelo provedor.' },
        });
        expect(await countPayments(businessId)).toBe(0);
      } finally {
        h.rails.refusal = undefined;
      }
    });

    test('a payment keeps the customer it names on its record; one naming none has null', async () => {
      const businessId = await h.newBusiness();
      const customerId = newPublicId('cust');
      const named = await h.createPayment(businessId, { customer_id: customerId });
      const unnamed = await h.createPayment(businessId);
      expect(named.payment.customer_id).toBe(customerId);
      expect(unnamed.payment.customer_id).toBeNull();
      const read = await h.request(getPayment, {
        business_id: businessId,
        payment_id: named.payment.payment_id,
      });
      expect(read.ok && read.result.payment.customer_id).toBe(customerId);
    });
  });

  describe('payment.get.v1', () => {
    test('returns the payment with its instructions, the same on a repeated delivery, and NOT_FOUND elsewhere', async () => {
      const businessId = await h.newBusiness();
      const created = await h.createPayment(businessId);
      const query = { business_id: businessId, payment_id: created.payment.payment_id };
      const messageId = newPublicId('cmd');
      const first = await h.request(getPayment, query, { messageId });
      const second = await h.request(getPayment, query, { messageId });
      expect(first).toEqual({ ok: true, result: created });
      expect(second).toEqual(first);
      const other = await h.request(getPayment, { ...query, business_id: newPublicId('biz') });
      expect(other).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
    });
  });

  describe('payment.update.v1', () => {
    test('a crypto amount change gets a new reference; a metadata-only change keeps the address', async () => {
      const businessId = await h.newBusiness();
      const created = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
      const paymentId = created.payment.payment_id;
      const changed = await h.request(updatePayment, {
        business_id: businessId,
        payment_id: paymentId,
        amount_centavos: 20000,
      });
      if (!changed.ok) throw new Error(JSON.stringify(changed.error));
      expect(changed.result.payment).toMatchObject({ amount_centavos: 20000, fee_centavos: 300 + 10 });
      expect(changed.result.payment.external_id).not.toBe(created.payment.external_id);
      expect(changed.result.crypto!.payment_link).not.toBe(created.crypto!.payment_link);

      const metadataOnly = await h.request(updatePayment, {
        business_id: businessId,
        payment_id: paymentId,
        metadata: '{"nota":2}',
      });
      if (!metadataOnly.ok) throw new Error(JSON.stringify(metadataOnly.error));
      expect(metadataOnly.result.crypto).toBeUndefined();
      expect(metadataOnly.result.payment).toMatchObject({
        metadata: '{"nota":2}',
        amount_centavos: 20000,
        external_id: changed.result.payment.external_id,
      });
    });

    test('when the same update is delivered twice the rail changes once and the version moves once', async () => {
      const businessId = await h.newBusiness();
      const created = await h.createPayment(businessId);
      const messageId = newPublicId('cmd');
      const command = {
        business_id: businessId,
        payment_id: created.payment.payment_id,
        amount_centavos: 777,
      };
      const first = await h.request(updatePayment, command, { messageId });
      const second = await h.request(updatePayment, command, { messageId });
      expect(second).toEqual(first);
      expect(
        h.rails.callsOf('pix.charge.change-amount.v1').filter((c) => c.messageId.startsWith(messageId)),
      ).toHaveLength(1);
      const [row] = await h.service.dataSource.query('SELECT version FROM payments WHERE id = $1', [
        created.payment.payment_id,
      ]);
      expect(row.version).toBe(2);
    });
  });

  describe('payment.simulate.v1', () => {
    /** A `paid` simulation of a new payment of a new business, and a message id to send it under. */
    const aPaidSimulation = async (overrides: Partial<CreatePayment>) => {
      const businessId = await h.newBusiness();
      const created = await h.createPayment(businessId, overrides);
      const command = {
        business_id: businessId,
        payment_id: created.payment.payment_id,
        outcome: 'paid' as const,
        amount_centavos: null,
      };
      return { command, messageId: newPublicId('cmd') };
    };

    const simulate = (command: SimulatePayment, messageId?: string) =>
      h.request(simulatePayment, command, { messageId });

    /** Puts the payment in a final status directly, as its rail's event would have. */
    const makeFinal = (paymentId: string, status: 'paid' | 'expired') =>
      h.service.dataSource.query('UPDATE payments SET status = $2 WHERE id = $1', [paymentId, status]);

    test('routes to the payment rail once per command, and refuses another business or a final payment', async () => {
      const { command, messageId } = await aPaidSimulation({ method: 'crypto', token: 'usdc' });
      expect(await simulate(command, messageId)).toEqual({ ok: true, result: { accepted: true } });
      await simulate(command, messageId);
      const calls = h.rails
        .callsOf('crypto.request.simulate.v1')
        .filter((c) => c.messageId.startsWith(messageId));
      expect(new Set(calls.map((c) => c.messageId))).toEqual(new Set([`${messageId}:simulate`]));
      const other = await simulate({ ...command, business_id: newPublicId('biz') });
      expect(other).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
      await makeFinal(command.payment_id, 'expired');
      const final = await simulate(command);
      expect(final).toEqual({
        ok: false,
        error: {
          code: 'INVALID_STATUS',
          message: 'Operação não permitida: o pagamento está com status expired.',
        },
      });
    });

    test('a command retried after its outcome made the payment final gets its first answer again', async () => {
      const { command, messageId } = await aPaidSimulation({ method: 'crypto', token: 'usdc' });
      const first = await simulate(command, messageId);
      expect(first).toEqual({ ok: true, result: { accepted: true } });
      await makeFinal(command.payment_id, 'paid');
      const retried = await simulate(command, messageId);
      expect(retried).toEqual(first);
      const another = await simulate(command);
      expect(another).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_STATUS' }) });
    });

    test('a command whose rail answer was lost is accepted on retry once its outcome made the payment final', async () => {
      const { command, messageId } = await aPaidSimulation({ method: 'pix' });
      h.rails.silent = true;
      try {
        const lost = await simulate(command, messageId);
        expect(lost).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) });
      } finally {
        h.rails.silent = false;
      }
      // The rail carried the outcome out all the same: its event made the payment final.
      await makeFinal(command.payment_id, 'paid');
      const retried = await simulate(command, messageId);
      expect(retried).toEqual({ ok: true, result: { accepted: true } });
      const another = await simulate(command);
      expect(another).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_STATUS' }) });
    });
  });

  describe('fee-rule.set.v1', () => {
    test('replaces the rule of a method, once per command, and new payments use it', async () => {
      const businessId = await h.newBusiness();
      const rule = { business_id: businessId, method: 'pix' as const, percent_bps: 250, fixed_centavos: 0 };
      const messageId = newPublicId('cmd');
      const first = await h.request(setFeeRule, rule, { messageId });
      const second = await h.request(setFeeRule, rule, { messageId });
      expect(first).toEqual({ ok: true, result: rule });
      expect(second).toEqual(first);
      const rows = await h.service.dataSource.query(
        'SELECT percent_bps FROM fee_rules WHERE business_id = $1',
        [businessId],
      );
      expect(rows).toEqual(expect.arrayContaining([{ percent_bps: 250 }]));
      expect((await h.createPayment(businessId)).payment.fee_centavos).toBe(250);
    });
  });

  describe('payment.event-log.read.v1', () => {
    /** The log's last position now: a test reads only what it causes after it. */
    const lastPosition = async (): Promise<string> =>
      (await h.service.dataSource.query(`SELECT COALESCE(max(seq), 0)::text AS position FROM outbox`))[0]
        .position;
    const readAfter = (after_position: string, messageId?: string) =>
      h.request(
        readPaymentEventLog,
        { after_position, limit: 100, settled_seconds: 0, names: [paymentCreated.name] },
        { messageId },
      );

    test('answers the payment events committed after a position, in order, and a repeated read alike', async () => {
      const start = await lastPosition();
      const businessId = await h.newBusiness();
      const first = await h.createPayment(businessId);
      const second = await h.createPayment(businessId);
      const messageId = newPublicId('cmd');

      const reply = await readAfter(start, messageId);
      const again = await readAfter(start, messageId);

      if (!reply.ok) throw new Error(`refused: ${reply.error.code}`);
      const mine = reply.result.entries.filter(
        (entry) => (entry.payload as { business_id: string }).business_id === businessId,
      );
      expect(mine.map((entry) => [entry.name, (entry.payload as any).payment.payment_id])).toEqual([
        [paymentCreated.name, first.payment.payment_id],
        [paymentCreated.name, second.payment.payment_id],
      ]);
      expect(BigInt(reply.result.next_position)).toBeGreaterThanOrEqual(BigInt(mine[1]!.position));
      expect(again).toEqual(reply);
    });

    test('a page of a bad shape is refused as a poison message: parked, never retried', async () => {
      const { messageId, parked } = await h.publishPoisoned(
        'commands',
        readPaymentEventLog,
        { after_position: '0', limit: 10, settled_seconds: 0, names: [] },
        { limit: 'many' },
      );
      expect(parked).toEqual([
        expect.objectContaining({ messageId, reason: expect.stringContaining('limit') }),
      ]);
    });
  });

  const commands = [
    poisonCase(createPayment, aCreatePayment(newPublicId('biz'))),
    poisonCase(getPayment, { business_id: newPublicId('biz'), payment_id: 'pay_x' }),
    poisonCase(updatePayment, { business_id: newPublicId('biz'), payment_id: 'pay_x' }),
    poisonCase(simulatePayment, {
      business_id: newPublicId('biz'),
      payment_id: 'pay_x',
      outcome: 'paid',
      amount_centavos: null,
    }),
    poisonCase(setFeeRule, {
      business_id: newPublicId('biz'),
      method: 'pix',
      percent_bps: 1,
      fixed_centavos: 0,
    }),
    poisonCase(cancelPayment, { business_id: newPublicId('biz'), payment_id: newPublicId('pay') }),
    poisonCase(createRefund, {
      business_id: newPublicId('biz'),
      payment_id: newPublicId('pay'),
      amount_centavos: 100,
    }),
    poisonCase(getRefund, { business_id: newPublicId('biz'), refund_id: newPublicId('ref') }),
    poisonCase(listRefunds, { business_id: newPublicId('biz'), payment_id: newPublicId('pay') }),
    poisonCase(checkRefundReservation, { refund_id: newPublicId('ref'), payment_id: newPublicId('pay') }),
  ];

  test.each(commands)(
    'a poison %s message is parked and answered instead of being retried',
    async (_name, definition, payload) => {
      // A field its contract names, retyped: readers pass over the fields a contract does not name.
      const field = 'business_id' in payload ? 'business_id' : 'payment_id';
      const { messageId, parked } = await h.publishPoisoned('commands', definition, payload, { [field]: 42 });
      expect(parked).toEqual([
        expect.objectContaining({ messageId, reason: expect.stringContaining(field) }),
      ]);
    },
  );

  test('after losing its broker connection the service reconnects and serves every command again', async () => {
    const businessId = await h.newBusiness();
    h.service.broker.dropConnectionForTesting();
    const { result: created } = await untilAnsweredOk(
      () =>
        h.request(createPayment, aCreatePayment(businessId), {
          timeoutMs: 1000,
          messageId: `reconnect-${businessId}`,
        }),
      'a create after reconnect',
    );
    const paymentId = created.payment.payment_id;
    const replies = await Promise.all([
      h.request(getPayment, { business_id: businessId, payment_id: paymentId }),
      h.request(updatePayment, { business_id: businessId, payment_id: paymentId, metadata: '{}' }),
      h.request(setFeeRule, { business_id: businessId, method: 'pix', percent_bps: 1, fixed_centavos: 1 }),
      h.request(readPaymentEventLog, { after_position: '0', limit: 1, settled_seconds: 0, names: [] }),
    ]);
    expect(replies.map((r) => r.ok)).toEqual([true, true, true, true]);
    const simulated = await h.request(simulatePayment, {
      business_id: businessId,
      payment_id: paymentId,
      outcome: 'paid',
      amount_centavos: null,
    });
    expect(simulated.ok).toBe(true);
    expect(await countPayments(businessId)).toBe(1);
  });
});
