import {
  createPayment,
  cryptoRequestSettled,
  newPublicId,
  pixChargePaid,
  setFeeRule,
  type PaymentView,
} from '@gateway/contracts';
import { aCryptoRequestSettled, aPixChargePaid } from './support/rail-events';
import { aCreatePayment, paymentServiceForTheseTests, type Harness } from './support/harness';

const A_SOLANA_OWNER = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

/** The `payment.*` events written for a payment, with the record each carries. */
async function paymentEvents(h: Harness, paymentId: string) {
  const rows: Array<{ name: string; payment: PaymentView['payment'] }> = await h.service.dataSource.query(
    `SELECT name, envelope->'payload'->'payment' AS payment FROM outbox
      WHERE envelope->'payload'->'payment'->>'payment_id' = $1 ORDER BY seq`,
    [paymentId],
  );
  return rows;
}

describe('the payment record carries what a merchant needs again', () => {
  const h = paymentServiceForTheseTests('payment-record');

  test('an open PIX payment answers its fee, its window end and no payer; once paid, who paid, on GET and in its event', async () => {
    const businessId = await h.newBusiness();
    const created = await h.createPayment(businessId, { amount_centavos: 10000 });
    const open = await h.readPayment(businessId, created.payment.payment_id);
    expect(open.payment).toMatchObject({
      fee_centavos: 160,
      expires_at: created.pix!.expires_at,
      payer: null,
    });
    expect(open.pix).toEqual(created.pix);

    const payer = { name: 'Maria Souza', document_masked: '***.456.789-**' };
    await h.client.publish(pixChargePaid, aPixChargePaid(created.payment, { payer }));
    const paid = await h.waitForPaymentStatus(businessId, created.payment.payment_id, 'paid');
    expect(paid.payment).toMatchObject({ payer, expires_at: created.pix!.expires_at });
    const confirmed = (await paymentEvents(h, created.payment.payment_id)).find(
      (event) => event.name === 'payment.confirmed.v1',
    );
    expect(confirmed?.payment).toMatchObject({ payer, fee_centavos: 160 });
    // A PIX record names no token (the ledger holds its money in cash_psp).
    expect(confirmed?.payment).not.toHaveProperty('token');
    expect(confirmed?.payment).not.toHaveProperty('amount_base_units');
  });

  test.each([
    ['a PIX event without a payer (written before it existed)', {}],
    ['a PIX event whose PSP did not say', { payer: null }],
  ])('%s pays the payment with payer null', async (_case, extra) => {
    const businessId = await h.newBusiness();
    const created = await h.createPayment(businessId);
    await h.client.publish(pixChargePaid, { ...aPixChargePaid(created.payment), ...extra });
    const paid = await h.waitForPaymentStatus(businessId, created.payment.payment_id, 'paid');
    expect(paid.payment.payer).toBeNull();
  });

  test('a crypto payment paid on chain names the owner of the paying token account; without it, null', async () => {
    const businessId = await h.newBusiness();
    const withOwner = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    const withoutOwner = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    expect(withOwner.payment).toMatchObject({ expires_at: withOwner.crypto!.expires_at, payer: null });
    await h.client.publish(
      cryptoRequestSettled,
      aCryptoRequestSettled(withOwner.payment, { payer_address: A_SOLANA_OWNER }),
    );
    await h.client.publish(
      cryptoRequestSettled,
      aCryptoRequestSettled(withoutOwner.payment, { payer_address: null }),
    );
    const paid = await h.waitForPaymentStatus(businessId, withOwner.payment.payment_id, 'paid');
    expect(paid.payment.payer).toEqual({ address: A_SOLANA_OWNER });
    // The internal record names its token: the ledger keeps the holding in that token's account.
    expect(paid.payment.token).toBe('usdc');
    const confirmed = (await paymentEvents(h, withOwner.payment.payment_id)).find(
      (event) => event.name === 'payment.confirmed.v1',
    );
    expect(confirmed?.payment.token).toBe('usdc');
    // And its token amount, which the ledger counts its holdings in (reconciled with the wallet's balance on chain).
    expect(confirmed?.payment.amount_base_units).toBe(withOwner.crypto!.amount_base_units);
    const other = await h.waitForPaymentStatus(businessId, withoutOwner.payment.payment_id, 'paid');
    expect(other.payment.payer).toBeNull();
  });

  test.each([
    ['a whole CPF', { name: 'Maria', document_masked: '123.456.789-09' }],
    ['a CPF masked another way', { name: 'Maria', document_masked: '123.***.***-09' }],
    ['a name over 200 characters', { name: 'M'.repeat(201), document_masked: null }],
    ['an empty name', { name: '', document_masked: null }],
  ])('a PIX event carrying %s as payer is parked, and the payment stays open', async (_case, payer) => {
    const businessId = await h.newBusiness();
    const created = await h.createPayment(businessId);
    const { messageId, parked } = await h.publishPoisoned(
      'events',
      pixChargePaid,
      aPixChargePaid(created.payment),
      { payer },
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId, reason: expect.stringContaining('payer') }),
    ]);
    expect((await h.readPayment(businessId, created.payment.payment_id)).payment.status).toBe('processing');
  });

  test.each([
    ['a whole CPF', { payer_document_masked: '12345678909' }],
    ['a payer on an open payment', { payer_name: 'Maria' }],
    ['a Solana payer on a PIX payment', { payer_address: A_SOLANA_OWNER }],
  ])('the database refuses %s', async (_case, columns) => {
    const businessId = await h.newBusiness();
    const created = await h.createPayment(businessId);
    const paymentId = created.payment.payment_id;
    const status = 'payer_name' in columns ? 'processing' : 'paid';
    const [column, value] = Object.entries(columns)[0]!;
    await expect(
      h.service.dataSource.query(`UPDATE payments SET status = $2, ${column} = $3 WHERE id = $1`, [
        paymentId,
        status,
        value,
      ]),
    ).rejects.toThrow(/violates check constraint "payments_payer/);
  });
});

describe('a new business takes a payment at once with the default fee rules', () => {
  const h = paymentServiceForTheseTests('payment-default-fees', {
    DEFAULT_FEE_PIX: '99bps+0',
    DEFAULT_FEE_CRYPTO: '150bps+10',
  });

  test('without a rule of its own it pays the default of each method, and keeps it as its own', async () => {
    const businessId = newPublicId('biz');
    const pix = await h.createPayment(businessId, { amount_centavos: 10000 });
    const crypto = await h.createPayment(businessId, {
      method: 'crypto',
      token: 'usdc',
      amount_centavos: 10000,
    });
    expect(pix.payment.fee_centavos).toBe(99);
    expect(crypto.payment.fee_centavos).toBe(150 + 10);
    const rules = await h.service.dataSource.query(
      'SELECT method, percent_bps, fixed_centavos::int AS fixed FROM fee_rules WHERE business_id = $1 ORDER BY method',
      [businessId],
    );
    expect(rules).toEqual([
      { method: 'crypto', percent_bps: 150, fixed: 10 },
      { method: 'pix', percent_bps: 99, fixed: 0 },
    ]);
  });

  test("a rule the operator set is the business's, whatever the default", async () => {
    const businessId = newPublicId('biz');
    const rule = { business_id: businessId, method: 'pix' as const, percent_bps: 300, fixed_centavos: 25 };
    expect((await h.request(setFeeRule, rule)).ok).toBe(true);
    const pix = await h.createPayment(businessId, { amount_centavos: 10000 });
    expect(pix.payment.fee_centavos).toBe(325);
  });

  test('two first payments of a new business at once both take the default, once', async () => {
    for (let round = 0; round < 5; round += 1) {
      const businessId = newPublicId('biz');
      const replies = await Promise.all([
        h.request(createPayment, aCreatePayment(businessId)),
        h.request(createPayment, aCreatePayment(businessId)),
      ]);
      expect(replies.map((reply) => reply.ok && reply.result.payment.fee_centavos)).toEqual([99, 99]);
      const [{ n }] = await h.service.dataSource.query(
        'SELECT count(*)::int AS n FROM fee_rules WHERE business_id = $1',
        [businessId],
      );
      expect(n).toBe(1);
    }
  });
});

describe('a deployment without default fee rules', () => {
  const h = paymentServiceForTheseTests('payment-no-default-fees', {
    DEFAULT_FEE_PIX: '',
    DEFAULT_FEE_CRYPTO: '',
  });

  test.each(['pix', 'crypto'] as const)(
    'refuses a %s payment of a business without a rule with NO_FEE_RULE, storing nothing',
    async (method) => {
      const businessId = newPublicId('biz');
      const reply = await h.request(
        createPayment,
        aCreatePayment(businessId, { method, token: method === 'crypto' ? 'usdc' : null }),
      );
      expect(reply).toEqual({ ok: false, error: expect.objectContaining({ code: 'NO_FEE_RULE' }) });
      const [{ payments, rules }] = await h.service.dataSource.query(
        `SELECT (SELECT count(*)::int FROM payments WHERE business_id = $1) AS payments,
                (SELECT count(*)::int FROM fee_rules WHERE business_id = $1) AS rules`,
        [businessId],
      );
      expect({ payments, rules }).toEqual({ payments: 0, rules: 0 });
    },
  );
});
