import { createCustomer, createPayment, newPublicId } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { startHarness, type Harness } from './support/harness';
import { pixView } from './support/payments';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('api gateway: Idempotency-Key', () => {
  let h: Harness;
  let merchant: { business_id: string; api_key: string };

  beforeAll(async () => {
    h = await startHarness('gw-idem', { services: ['payment', 'customer'] });
    merchant = await h.newBusiness();
    // Slow enough that two concurrent requests overlap; each answer is a new payment.
    h.fakes.on(createPayment, async (command) => {
      await sleep(200);
      return pixView({ business_id: command.business_id, amount_centavos: command.amount_centavos });
    });
  });
  afterAll(async () => h.close());

  const create = (key: string, body: object) =>
    h.http.post('/v1/payments').set('x-api-key', merchant.api_key).set('Idempotency-Key', key).send(body);

  test('two concurrent identical POSTs with one key run the command once and get identical answers', async () => {
    const key = newPublicId('idem');
    const before = h.fakes.receivedOf(createPayment).length;
    const [first, second] = await Promise.all([
      create(key, { payment_method: 'pix', amount: 4200 }),
      create(key, { amount: 4200, payment_method: 'pix' }),
    ]);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(h.fakes.receivedOf(createPayment)).toHaveLength(before + 1);
  });

  test('a later retry with the same key and body replays the first answer byte for byte', async () => {
    const key = newPublicId('idem');
    const first = await create(key, { payment_method: 'pix', amount: 1500, metadata: '{"pedido":1}' });
    const again = await create(key, { payment_method: 'pix', amount: 1500, metadata: '{"pedido":1}' });
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  test('the same key with a different body is IDEMPOTENCY_CONFLICT (409)', async () => {
    const key = newPublicId('idem');
    await create(key, { payment_method: 'pix', amount: 1500 });
    const conflict = await create(key, { payment_method: 'pix', amount: 1600 });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ error: { code: 'IDEMPOTENCY_CONFLICT', message: expect.any(String) } });
  });

  test('keys are per business: another business may use the same key', async () => {
    const key = newPublicId('idem');
    const other = await h.newBusiness('Outra');
    const mine = await create(key, { payment_method: 'pix', amount: 1500 });
    const theirs = await h.http
      .post('/v1/payments')
      .set('x-api-key', other.api_key)
      .set('Idempotency-Key', key)
      .send({ payment_method: 'pix', amount: 1500 });
    expect(theirs.status).toBe(201);
    expect(theirs.body.payment_id).not.toBe(mine.body.payment_id);
  });

  test('after a 5xx answer a retry with the same body runs again, with the same command id downstream', async () => {
    const key = newPublicId('idem');
    let calls = 0;
    h.fakes.on(createCustomer, async (command) => {
      calls += 1;
      if (calls === 1) throw new CommandError('SERVICE_UNAVAILABLE', 'indisponível');
      return {
        customer_id: newPublicId('cust'),
        business_id: command.business_id,
        email: command.email,
        phone_number: null,
        document_number: null,
        ip: command.ip,
        metadata: null,
        created_at: new Date().toISOString(),
      };
    });
    const send = () =>
      h.http
        .post('/v1/customers')
        .set('x-api-key', merchant.api_key)
        .set('Idempotency-Key', key)
        .send({ email: 'joana@example.com' });
    const failed = await send();
    expect(failed.status).toBe(503);
    const retried = await send();
    expect(retried.status).toBe(201);
    const ids = h.fakes.received
      .filter((entry) => entry.name === createCustomer.name)
      .map((e) => e.messageId);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
  });

  test('after a 5xx, the same key with a different body is still a conflict and nothing is sent downstream', async () => {
    const key = newPublicId('idem');
    h.fakes.on(createCustomer, async () => {
      throw new CommandError('SERVICE_UNAVAILABLE', 'indisponível');
    });
    const send = (email: string) =>
      h.http
        .post('/v1/customers')
        .set('x-api-key', merchant.api_key)
        .set('Idempotency-Key', key)
        .send({ email });
    expect((await send('joana@example.com')).status).toBe(503);
    const sentBefore = h.fakes.received.filter((entry) => entry.name === createCustomer.name).length;
    const conflicting = await send('outra@example.com');
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(h.fakes.received.filter((entry) => entry.name === createCustomer.name)).toHaveLength(sentBefore);
  });

  test('a 4xx answer is kept and replayed too', async () => {
    const key = newPublicId('idem');
    const first = await create(key, { payment_method: 'pix', amount: 10 });
    const again = await create(key, { payment_method: 'pix', amount: 10 });
    expect(first.status).toBe(422);
    expect(again.status).toBe(422);
    expect(again.text).toBe(first.text);
  });
});
