import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { paymentCreated, type PaymentEventPayload } from '@gateway/contracts';
import { InvalidMessageError } from '@gateway/messaging';
import { aPaymentRecord, waitFor } from '@gateway/testkit';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness';

const eventOf = (amountCentavos: number): PaymentEventPayload => {
  const payment = aPaymentRecord({ amount_centavos: amountCentavos });
  return {
    event_id: `evt_${randomBytes(18).toString('base64url')}`,
    business_id: payment.business_id,
    occurred_at: new Date().toISOString(),
    payment,
  };
};

/** `pnpm admin ARGS` against the test's gateway; resolves its standard output as JSON. */
async function adminCommand(h: Harness, ...args: string[]): Promise<unknown> {
  const root = join(__dirname, '../../..');
  const { stdout } = await promisify(execFile)(
    join(root, 'node_modules/.bin/tsx'),
    [join(root, 'scripts/admin-cli.ts'), ...args],
    { env: { ...process.env, GATEWAY_URL: h.gateway.url, ADMIN_TOKEN } },
  );
  return JSON.parse(stdout);
}

describe('api gateway: operators see and re-drive parked messages', () => {
  let h: Harness;
  let refusing = true;
  const handled: string[] = [];

  beforeAll(async () => {
    h = await startHarness('gw-parked', { services: [] });
    // A consumer of the stack's checkout events that refuses them for now: they are parked.
    await h.fakes.broker
      .handlers('checkout')
      .handle(paymentCreated, async (_payload: PaymentEventPayload, context) => {
        if (refusing) throw new InvalidMessageError('refused until the operator fixes it');
        handled.push(context.envelope.id);
      })
      .consume();
  });
  afterAll(async () => h.close());

  const admin = (method: 'get' | 'post', path: string) =>
    h.http[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);

  test('parked messages are listed by queue, and a re-drive of their queue hands them back once each', async () => {
    const parked = [
      await h.fakes.broker.publish(paymentCreated, eventOf(1000)),
      await h.fakes.broker.publish(paymentCreated, eventOf(2000)),
    ];
    const listed = await waitFor(
      async () => {
        const response = await admin('get', '/admin/v1/parked');
        return response.body.total_parked === 2 ? response : undefined;
      },
      { what: 'two parked events in the listing' },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.queues).toContainEqual({ queue: 'checkout.events', parked: 2 });

    refusing = false;
    const redrive = await admin('post', '/admin/v1/parked/redrive').send({ queue: 'checkout.events' });

    expect(redrive.status).toBe(200);
    expect(redrive.body).toEqual({
      queues: [{ queue: 'checkout.events', redriven: 2 }],
      total_redriven: 2,
    });
    await waitFor(() => handled.length === 2, { what: 'the re-driven events handled' });
    expect([...handled].sort()).toEqual(parked.map((envelope) => envelope.id).sort());
    const after = await admin('get', '/admin/v1/parked');
    expect(after.body.total_parked).toBe(0);
  });

  test('the operator command lists parked messages and re-drives them through the API', async () => {
    refusing = true;
    const envelope = await h.fakes.broker.publish(paymentCreated, eventOf(3000));
    await waitFor(
      async () => ((await adminCommand(h, 'parked')) as { total_parked: number }).total_parked === 1,
      { what: 'the parked event, as the operator command lists it' },
    );

    refusing = false;
    expect(await adminCommand(h, 'redrive-parked', 'checkout.events')).toEqual({
      queues: [{ queue: 'checkout.events', redriven: 1 }],
      total_redriven: 1,
    });
    await waitFor(() => handled.includes(envelope.id), { what: 'the re-driven event handled' });
  });

  test('a re-drive without a queue re-drives every queue, and nothing parked means nothing moved', async () => {
    const response = await admin('post', '/admin/v1/parked/redrive');
    expect(response.status).toBe(200);
    expect(response.body.total_redriven).toBe(0);
    expect(response.body.queues).toContainEqual({ queue: 'checkout.events', redriven: 0 });
  });

  test('a queue the stack does not have is INVALID_FIELDS', async () => {
    const response = await admin('post', '/admin/v1/parked/redrive').send({ queue: 'nobody.events' });
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual({ code: 'INVALID_FIELDS', message: 'Campos inválidos: queue.' });
  });

  test('listing and re-driving need the admin token', async () => {
    for (const response of [
      await h.http.get('/admin/v1/parked'),
      await h.http.post('/admin/v1/parked/redrive').set('Authorization', 'Bearer wrong-token').send({}),
    ]) {
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
    }
  });
});
