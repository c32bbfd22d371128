import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { longRunningNode } from '@gateway/config';
import { createPayment, newPublicId, type PaymentView } from '@gateway/contracts';
import type { ServiceRuntime } from '@gateway/service-runtime';
import {
  aPixPaymentView,
  freePort,
  letTimePass,
  serviceTestBed,
  waitFor,
  type ServiceTestBed,
} from '@gateway/testkit';
import { apiGatewayVariables, type ApiGatewayConfig } from '../src/config';
import { startApiGateway, type RunningApiGateway } from '../src/main';
import { ADMIN_TOKEN, deleteRedisKeys, FakeServices, gatewayConfig } from './support/harness';

const root = join(__dirname, '../../..');
/** Longer than any wait here, so only the idempotency lease decides when a retry may go through. */
const RPC_TIMEOUT_MS = 15_000;
/**
 * The claim's lease (LEASE_SECONDS in src/application/claim-idempotency-key.ts) plus the slack of polling and a
 * loaded machine.
 */
const TAKEOVER_BOUND_MS = 8000;

/** A second gateway as a real process on the same database, broker and Redis, that a test can kill -9. */
async function spawnGateway(config: ApiGatewayConfig): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const variables = { ...config, PORT: port } as unknown as Record<string, unknown>;
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  for (const name of apiGatewayVariables)
    if (variables[name] !== undefined) env[name] = String(variables[name]);
  const node = longRunningNode(['--import', 'tsx', join(root, 'services/api-gateway/src/main.ts')], env);
  const child = spawn(process.execPath, node.args, { cwd: root, env: node.env, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok, {
    timeoutMs: 30_000,
    intervalMs: 200,
    what: 'the spawned gateway to listen',
  });
  return { url, process: child };
}

describe('api gateway: an idempotency claim is a lease held while the request runs', () => {
  let bed: ServiceTestBed<ServiceRuntime>;
  let gateway: RunningApiGateway;
  let config: ApiGatewayConfig;
  let fakes: FakeServices;
  let merchant: { business_id: string; api_key: string };
  let spawned: ChildProcess | undefined;
  /** The fake payment service's inbox: one payment per command id, as the real one applies a command once. */
  const payments = new Map<string, PaymentView>();
  /** How long the fake payment service takes to answer: a test outlasting the lease makes it slow. */
  let answerAfterMs = 0;
  let holdNext = false;
  let released = false;

  beforeAll(async () => {
    bed = await serviceTestBed('gw-lease', async (env, cleanup) => {
      cleanup.afterStop(() => deleteRedisKeys(env.config.REDIS_URL, env.config.REDIS_PREFIX));
      config = gatewayConfig(env, { RPC_TIMEOUT_MS });
      gateway = await startApiGateway(config);
      return gateway.runtime;
    });
    fakes = await FakeServices.start(bed.client, ['payment']);
    fakes.on(createPayment, async (command, context) => {
      if (holdNext) {
        holdNext = false;
        await waitFor(() => released, { timeoutMs: 60_000, what: 'the held command to be released' });
      }
      await letTimePass(answerAfterMs);
      const id = context.envelope.id;
      if (!payments.has(id))
        payments.set(
          id,
          aPixPaymentView({ business_id: command.business_id, amount_centavos: command.amount_centavos }),
        );
      return payments.get(id)!;
    });
    const created = await request(gateway.url)
      .post('/admin/v1/businesses')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ name: 'Padaria Aurora' });
    merchant = created.body as typeof merchant;
  });

  afterAll(async () => {
    released = true;
    spawned?.kill('SIGKILL');
    await bed.close();
  });

  const create = (url: string, key: string) =>
    request(url)
      .post('/v1/payments')
      .set('x-api-key', merchant.api_key)
      .set('Idempotency-Key', key)
      .send({ payment_method: 'pix', amount: 2750 });
  const commandIds = () =>
    fakes.received.filter((entry) => entry.name === createPayment.name).map((entry) => entry.messageId);

  test('a request running longer than the lease keeps its claim: a repeat waits for its answer, the command runs once', async () => {
    answerAfterMs = 7000;
    try {
      const key = newPublicId('idem');
      const sentBefore = commandIds().length;
      const first = create(gateway.url, key).then((response) => response);
      await waitFor(() => commandIds().length > sentBefore, { what: 'the first command to arrive' });
      const repeat = await create(gateway.url, key);
      const original = await first;
      expect(original.status).toBe(201);
      expect(repeat.status).toBe(201);
      expect(repeat.text).toBe(original.text);
      expect(commandIds().slice(sentBefore)).toHaveLength(1);
    } finally {
      answerAfterMs = 0;
    }
  });

  test('a gateway killed (kill -9) holding a claim: the retry with the same key succeeds within seconds, one payment', async () => {
    const doomed = await spawnGateway(config);
    spawned = doomed.process;
    const key = newPublicId('idem');
    const sentBefore = commandIds().length;
    holdNext = true;
    released = false;
    const lost = create(doomed.url, key).then(
      (response) => response.status,
      () => 'connection lost',
    );
    await waitFor(() => commandIds().length > sentBefore, { what: 'the doomed gateway to send the command' });
    doomed.process.kill('SIGKILL');
    expect(await lost).toBe('connection lost');
    released = true;

    const started = Date.now();
    const retry = await create(gateway.url, key);
    const tookMs = Date.now() - started;
    expect(retry.status).toBe(201);
    expect(tookMs).toBeLessThan(TAKEOVER_BOUND_MS);
    // The retry continued the dead gateway's claim: the same command id, so the service applied it once.
    const ids = commandIds().slice(sentBefore);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
    expect(payments.get(ids[0]!)?.payment.payment_id).toBe(retry.body.payment_id);
    const again = await create(gateway.url, key);
    expect(again.text).toBe(retry.text);
    expect(commandIds().slice(sentBefore)).toHaveLength(2);
  });
});
