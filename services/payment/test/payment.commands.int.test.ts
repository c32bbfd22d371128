import {
  cancelPayment,
  createRefund,
  getRefund,
  listRefunds,
  createPayment,
  getPayment,
  newPublicId,
  setFeeRule,
  simulatePayment,
  updatePayment,
  type MessageDefinition,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { untilAnsweredOk, waitForParkedMessages } from '@gateway/testkit';
import { create, aCreatePayment, newBusiness, startHarness, type Harness } from './support/harness';

describe('payment service commands', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('payment-cmd');
  });

  afterAll(() => h.close());

  const countPayments = async (businessId: string): Promise<number> =>
    (
      await h.service.dataSource.query('SELECT count(*)::int AS n FROM payments WHERE business_id = $1', [
        businessId,
      ])
    )[0].n;

  describe('payment.create.v1', () => {
    test('a crypto payment is created pending with the watcher instructions and its reference as external id', async () => {
      const businessId = await newBusiness(h.client);
      const view = await create(h.client, businessId, {
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

    test('without a fee rule for the method the payment is refused with NO_FEE_RULE and nothing is stored', async () => {
      const businessId = newPublicId('biz');
      const reply = await h.client.request(createPayment, aCreatePayment(businessId), { timeoutMs: 5000 });
      expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'NO_FEE_RULE' }) });
      expect(await countPayments(businessId)).toBe(0);
    });

    test('when the same create is delivered twice, one payment and one charge exist and both replies match', async () => {
      const businessId = await newBusiness(h.client);
      const messageId = newPublicId('cmd');
      const command = aCreatePayment(businessId);
      const first = await h.client.request(createPayment, command, { timeoutMs: 5000, messageId });
      const second = await h.client.request(createPayment, command, { timeoutMs: 5000, messageId });
      expect(second).toEqual(first);
      expect(await countPayments(businessId)).toBe(1);
      const opens = h.rails.callsOf('pix.charge.open.v1').filter((c) => c.messageId === `${messageId}:open`);
      expect(new Set(opens.map((c) => c.payload.payment_id)).size).toBe(1);
    });

    test('a rail that does not answer gives SERVICE_UNAVAILABLE with nothing visible; the retry reuses the charge', async () => {
      const businessId = await newBusiness(h.client);
      const messageId = newPublicId('cmd');
      const command = aCreatePayment(businessId);
      h.rails.silent = true;
      try {
        const reply = await h.client.request(createPayment, command, { timeoutMs: 5000, messageId });
        expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) });
        expect(await countPayments(businessId)).toBe(0);
      } finally {
        h.rails.silent = false;
      }
      const retried = await h.client.request(createPayment, command, { timeoutMs: 5000, messageId });
      if (!retried.ok) throw new Error(JSON.stringify(retried.error));
      const opens = h.rails.callsOf('pix.charge.open.v1').filter((c) => c.messageId === `${messageId}:open`);
      expect(opens.length).toBe(2);
      expect(opens.every((c) => c.payload.payment_id === retried.result.payment.payment_id)).toBe(true);
      expect(await countPayments(businessId)).toBe(1);
    });

    test('a rail refusing for good gives INTERNAL_ERROR at once, not a SERVICE_UNAVAILABLE to retry for ever', async () => {
      const businessId = await newBusiness(h.client);
      h.rails.refusal = 'INVALID_FIELDS';
      try {
        const started = Date.now();
        const reply = await h.client.request(createPayment, aCreatePayment(businessId), { timeoutMs: 5000 });
        expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'INTERNAL_ERROR' }) });
        expect(Date.now() - started).toBeLessThan(1000);
        expect(await countPayments(businessId)).toBe(0);
      } finally {
        h.rails.refusal = undefined;
      }
    });

    test('a payment keeps the customer it names on its record; one naming none has null', async () => {
      const businessId = await newBusiness(h.client);
      const customerId = newPublicId('cust');
      const named = await create(h.client, businessId, { customer_id: customerId });
      const unnamed = await create(h.client, businessId);
      expect(named.payment.customer_id).toBe(customerId);
      expect(unnamed.payment.customer_id).toBeNull();
      const read = await h.client.request(
        getPayment,
        { business_id: businessId, payment_id: named.payment.payment_id },
        { timeoutMs: 5000 },
      );
      expect(read.ok && read.result.payment.customer_id).toBe(customerId);
    });
  });

  describe('payment.get.v1', () => {
    test('returns the payment with its instructions, the same on a repeated delivery, and NOT_FOUND elsewhere', async () => {
      const businessId = await newBusiness(h.client);
      const created = await create(h.client, businessId);
      const query = { business_id: businessId, payment_id: created.payment.payment_id };
      const messageId = newPublicId('cmd');
      const first = await h.client.request(getPayment, query, { timeoutMs: 5000, messageId });
      const second = await h.client.request(getPayment, query, { timeoutMs: 5000, messageId });
      expect(first).toEqual({ ok: true, result: created });
      expect(second).toEqual(first);
      const other = await h.client.request(
        getPayment,
        { ...query, business_id: newPublicId('biz') },
        { timeoutMs: 5000 },
      );
      expect(other).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
    });
  });

  describe('payment.update.v1', () => {
    test('a crypto amount change gets a new reference; a metadata-only change keeps the address', async () => {
      const businessId = await newBusiness(h.client);
      const created = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
      const paymentId = created.payment.payment_id;
      const changed = await h.client.request(
        updatePayment,
        { business_id: businessId, payment_id: paymentId, amount_centavos: 20000 },
        { timeoutMs: 5000 },
      );
      if (!changed.ok) throw new Error(JSON.stringify(changed.error));
      expect(changed.result.payment).toMatchObject({ amount_centavos: 20000, fee_centavos: 300 + 10 });
      expect(changed.result.payment.external_id).not.toBe(created.payment.external_id);
      expect(changed.result.crypto!.payment_link).not.toBe(created.crypto!.payment_link);

      const metadataOnly = await h.client.request(
        updatePayment,
        { business_id: businessId, payment_id: paymentId, metadata: '{"nota":2}' },
        { timeoutMs: 5000 },
      );
      if (!metadataOnly.ok) throw new Error(JSON.stringify(metadataOnly.error));
      expect(metadataOnly.result.crypto).toBeUndefined();
      expect(metadataOnly.result.payment).toMatchObject({
        metadata: '{"nota":2}',
        amount_centavos: 20000,
        external_id: changed.result.payment.external_id,
      });
    });

    test('when the same update is delivered twice the rail changes once and the version moves once', async () => {
      const businessId = await newBusiness(h.client);
      const created = await create(h.client, businessId);
      const messageId = newPublicId('cmd');
      const command = {
        business_id: businessId,
        payment_id: created.payment.payment_id,
        amount_centavos: 777,
      };
      const first = await h.client.request(updatePayment, command, { timeoutMs: 5000, messageId });
      const second = await h.client.request(updatePayment, command, { timeoutMs: 5000, messageId });
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
    test('routes to the payment rail once per command, and refuses another business or a final payment', async () => {
      const businessId = await newBusiness(h.client);
      const created = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
      const command = {
        business_id: businessId,
        payment_id: created.payment.payment_id,
        outcome: 'paid' as const,
        amount_centavos: null,
      };
      const messageId = newPublicId('cmd');
      expect(await h.client.request(simulatePayment, command, { timeoutMs: 5000, messageId })).toEqual({
        ok: true,
        result: { accepted: true },
      });
      await h.client.request(simulatePayment, command, { timeoutMs: 5000, messageId });
      const calls = h.rails
        .callsOf('crypto.request.simulate.v1')
        .filter((c) => c.messageId.startsWith(messageId));
      expect(new Set(calls.map((c) => c.messageId))).toEqual(new Set([`${messageId}:simulate`]));
      const other = await h.client.request(
        simulatePayment,
        { ...command, business_id: newPublicId('biz') },
        { timeoutMs: 5000 },
      );
      expect(other).toEqual({ ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
      await h.service.dataSource.query(`UPDATE payments SET status = 'expired' WHERE id = $1`, [
        created.payment.payment_id,
      ]);
      const final = await h.client.request(simulatePayment, command, { timeoutMs: 5000 });
      expect(final).toEqual({
        ok: false,
        error: {
          code: 'INVALID_STATUS',
          message: 'Operação não permitida: o pagamento está com status expired.',
        },
      });
    });

    test('a command retried after its outcome made the payment final gets its first answer again', async () => {
      const businessId = await newBusiness(h.client);
      const created = await create(h.client, businessId, { method: 'crypto', token: 'usdc' });
      const command = {
        business_id: businessId,
        payment_id: created.payment.payment_id,
        outcome: 'paid' as const,
        amount_centavos: null,
      };
      const messageId = newPublicId('cmd');
      const first = await h.client.request(simulatePayment, command, { timeoutMs: 5000, messageId });
      expect(first).toEqual({ ok: true, result: { accepted: true } });
      await h.service.dataSource.query(`UPDATE payments SET status = 'paid' WHERE id = $1`, [
        created.payment.payment_id,
      ]);
      const retried = await h.client.request(simulatePayment, command, { timeoutMs: 5000, messageId });
      expect(retried).toEqual(first);
      const another = await h.client.request(simulatePayment, command, { timeoutMs: 5000 });
      expect(another).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_STATUS' }) });
    });
    test('a command whose rail answer was lost is accepted on retry once its outcome made the payment final', async () => {
      const businessId = await newBusiness(h.client);
      const created = await create(h.client, businessId, { method: 'pix' });
      const command = {
        business_id: businessId,
        payment_id: created.payment.payment_id,
        outcome: 'paid' as const,
        amount_centavos: null,
      };
      const messageId = newPublicId('cmd');
      h.rails.silent = true;
      try {
        const lost = await h.client.request(simulatePayment, command, { timeoutMs: 5000, messageId });
        expect(lost).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) });
      } finally {
        h.rails.silent = false;
      }
      // The rail carried the outcome out all the same: its event made the payment final.
      await h.service.dataSource.query(`UPDATE payments SET status = 'paid' WHERE id = $1`, [
        created.payment.payment_id,
      ]);
      const retried = await h.client.request(simulatePayment, command, { timeoutMs: 5000, messageId });
      expect(retried).toEqual({ ok: true, result: { accepted: true } });
      const another = await h.client.request(simulatePayment, command, { timeoutMs: 5000 });
      expect(another).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_STATUS' }) });
    });
  });

  describe('fee-rule.set.v1', () => {
    test('replaces the rule of a method, once per command, and new payments use it', async () => {
      const businessId = await newBusiness(h.client);
      const rule = { business_id: businessId, method: 'pix' as const, percent_bps: 250, fixed_centavos: 0 };
      const messageId = newPublicId('cmd');
      const first = await h.client.request(setFeeRule, rule, { timeoutMs: 5000, messageId });
      const second = await h.client.request(setFeeRule, rule, { timeoutMs: 5000, messageId });
      expect(first).toEqual({ ok: true, result: rule });
      expect(second).toEqual(first);
      const rows = await h.service.dataSource.query(
        'SELECT percent_bps FROM fee_rules WHERE business_id = $1',
        [businessId],
      );
      expect(rows).toEqual(expect.arrayContaining([{ percent_bps: 250 }]));
      expect((await create(h.client, businessId)).payment.fee_centavos).toBe(250);
    });
  });

  const commands: Array<[MessageDefinition<unknown>, Record<string, unknown>]> = [
    [createPayment as MessageDefinition<unknown>, { ...aCreatePayment(newPublicId('biz')) }],
    [getPayment as MessageDefinition<unknown>, { business_id: newPublicId('biz'), payment_id: 'pay_x' }],
    [updatePayment as MessageDefinition<unknown>, { business_id: newPublicId('biz'), payment_id: 'pay_x' }],
    [
      simulatePayment as MessageDefinition<unknown>,
      { business_id: newPublicId('biz'), payment_id: 'pay_x', outcome: 'paid', amount_centavos: null },
    ],
    [
      setFeeRule as MessageDefinition<unknown>,
      { business_id: newPublicId('biz'), method: 'pix', percent_bps: 1, fixed_centavos: 0 },
    ],
    [
      cancelPayment as MessageDefinition<unknown>,
      { business_id: newPublicId('biz'), payment_id: newPublicId('pay') },
    ],
    [
      createRefund as MessageDefinition<unknown>,
      { business_id: newPublicId('biz'), payment_id: newPublicId('pay'), amount_centavos: 100 },
    ],
    [
      getRefund as MessageDefinition<unknown>,
      { business_id: newPublicId('biz'), refund_id: newPublicId('ref') },
    ],
    [
      listRefunds as MessageDefinition<unknown>,
      { business_id: newPublicId('biz'), payment_id: newPublicId('pay') },
    ],
  ];

  test.each(commands.map(([definition, payload]) => [definition.name, definition, payload] as const))(
    'a poison %s message is parked and answered instead of being retried',
    async (_name, definition, payload) => {
      const envelope = createEnvelope(definition, payload);
      await h.client.publishEnvelope({ ...envelope, payload: { ...payload, business_id: 42 } }, {});
      const parked = await waitForParkedMessages(
        `${h.env.config.AMQP_PREFIX}payment.commands.parking`,
        'the parked command',
      );
      expect(parked).toEqual([
        expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('business_id') }),
      ]);
    },
  );

  test('after losing its broker connection the service reconnects and serves every command again', async () => {
    const businessId = await newBusiness(h.client);
    h.service.broker.dropConnectionForTesting();
    const { result: created } = await untilAnsweredOk(
      () =>
        h.client.request(createPayment, aCreatePayment(businessId), {
          timeoutMs: 1000,
          messageId: `reconnect-${businessId}`,
        }),
      'a create after reconnect',
    );
    const paymentId = created.payment.payment_id;
    const replies = await Promise.all([
      h.client.request(getPayment, { business_id: businessId, payment_id: paymentId }, { timeoutMs: 5000 }),
      h.client.request(
        updatePayment,
        { business_id: businessId, payment_id: paymentId, metadata: '{}' },
        { timeoutMs: 5000 },
      ),
      h.client.request(
        setFeeRule,
        { business_id: businessId, method: 'pix', percent_bps: 1, fixed_centavos: 1 },
        { timeoutMs: 5000 },
      ),
    ]);
    expect(replies.map((r) => r.ok)).toEqual([true, true, true]);
    const simulated = await h.client.request(
      simulatePayment,
      { business_id: businessId, payment_id: paymentId, outcome: 'paid', amount_centavos: null },
      { timeoutMs: 5000 },
    );
    expect(simulated.ok).toBe(true);
    expect(await countPayments(businessId)).toBe(1);
  });
});
