import {
  getPixChargeStatus,
  newPublicId,
  openPixCharge,
  simulatePixOutcome,
  type OpenPixCharge,
  type PixCharge,
} from '@gateway/contracts';
import { startSandboxPspSimulator, type RunningPspSimulator } from '@gateway/psp-simulator';
import {
  connectionsIdleInTransaction,
  serviceTestBed,
  testLogger,
  waitFor,
  type ServiceTestBed,
  startHttpProxy,
  type HttpProxy,
} from '@gateway/testkit';
import { loadPixAdapterConfig } from '../src/config';
import { startPixAdapter, type PixAdapter } from '../src/main';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import { sandboxPayer } from './support/sandbox-payer';

/** The PSP's answers take this long: within the adapter's PSP timeout, long enough to see what waits on them. */
const SLOW_PSP_MS = 1500;

describe('PIX adapter with a slow PSP and lost callbacks', () => {
  let bed: ServiceTestBed<PixAdapter>;
  let psp: RunningPspSimulator;
  let proxy: HttpProxy;
  let payer: ApiPixClient;

  beforeAll(async () => {
    bed = await serviceTestBed('pix-adapter-slow', async (env, cleanup) => {
      psp = await startSandboxPspSimulator(testLogger('psp'));
      cleanup.afterStop(() => psp.close());
      proxy = await startHttpProxy(psp.url);
      cleanup.afterStop(() => proxy.close());
      return startPixAdapter(
        loadPixAdapterConfig({
          ...env.config,
          PSP_BASE_URL: proxy.url,
          PSP_TIMEOUT_MS: '5000',
          PSP_MAX_RETRIES: '0',
          CALLBACK_PORT: '0',
          // Registered at the PSP but nobody listens there: every callback is lost.
          CALLBACK_PUBLIC_URL: 'http://127.0.0.1:9',
          EXPIRY_SWEEP_INTERVAL_MS: '200',
          CALLBACK_OVERDUE_SECONDS: '1',
          CALLBACK_POLL_INTERVAL_MS: '200',
        }),
      );
    });
    payer = sandboxPayer(psp.url);
  });

  afterAll(async () => {
    await payer.close();
    await bed.close();
  });

  afterEach(() => {
    proxy.delayMs = 0;
  });

  const openCommand = (overrides: Partial<OpenPixCharge> = {}): OpenPixCharge => ({
    payment_id: newPublicId('pay'),
    business_name: 'Quitanda do Zé',
    amount_centavos: 2500,
    expires_in_seconds: 3600,
    ...overrides,
  });

  async function open(command = openCommand()): Promise<PixCharge> {
    const reply = await bed.client.request(openPixCharge, command, { timeoutMs: 15_000 });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  }

  const charge = async (txid: string) =>
    (
      await bed.service.dataSource.query('SELECT status, paid_end_to_end_id FROM charges WHERE txid = $1', [
        txid,
      ])
    )[0];

  const outbox = async (txid: string): Promise<string[]> =>
    (
      await bed.service.dataSource.query(
        `SELECT name FROM outbox WHERE envelope->'payload'->>'txid' = $1 ORDER BY seq`,
        [txid],
      )
    ).map((row: { name: string }) => row.name);

  const idleInTransaction = () => connectionsIdleInTransaction(bed.service.dataSource, bed.env.database.name);

  test('while opens and the expiry sweep wait on the PSP, no connection sits idle in a transaction', async () => {
    const expiring = await open();
    const payment = (
      await bed.service.dataSource.query(`SELECT payment_id FROM charges WHERE txid = $1`, [expiring.txid])
    )[0].payment_id;
    proxy.delayMs = SLOW_PSP_MS;
    const opens = Array.from({ length: 6 }, () => open());
    const expired = bed.client.request(
      simulatePixOutcome,
      { payment_id: payment, outcome: 'expired', amount_centavos: null },
      { timeoutMs: 15_000 },
    );
    // Six opens and the sweeper's re-read of the expired cob are at the PSP at once.
    await waitFor(() => proxy.inFlight >= 7, { what: 'the opens and the sweep waiting on the PSP' });
    const idle: number[] = [];
    for (let sample = 0; sample < 5; sample += 1) idle.push(await idleInTransaction());
    expect(idle).toEqual([0, 0, 0, 0, 0]);
    const opened = await Promise.all(opens);
    expect(new Set(opened.map((c) => c.txid)).size).toBe(6);
    expect((await expired).ok).toBe(true);
    await waitFor(async () => (await charge(expiring.txid)).status === 'expired', {
      what: 'the charge closed by the sweep',
    });
    expect(await outbox(expiring.txid)).toEqual(['pix.charge.closed.v1']);
  });

  test('while a simulated payment or removal waits on the PSP, no connection sits idle in a transaction', async () => {
    for (const outcome of ['paid', 'failed'] as const) {
      const opened = await open();
      const [{ payment_id: paymentId }] = await bed.service.dataSource.query(
        `SELECT payment_id FROM charges WHERE txid = $1`,
        [opened.txid],
      );
      proxy.delayMs = SLOW_PSP_MS;
      let answered = false;
      const reply = bed.client
        .request(
          simulatePixOutcome,
          { payment_id: paymentId, outcome, amount_centavos: null },
          { timeoutMs: 15_000 },
        )
        .finally(() => (answered = true));
      // Sampled until the answer: any transaction waiting out the PSP's delay shows up; short ones do not.
      const idle: number[] = [];
      while (!answered)
        idle.push(
          await connectionsIdleInTransaction(bed.service.dataSource, bed.env.database.name, {
            forAtLeastMs: 200,
          }),
        );
      expect(idle.length).toBeGreaterThanOrEqual(5);
      expect({ outcome, idle: idle.filter((n) => n > 0).length }).toEqual({ outcome, idle: 0 });
      expect(await reply).toEqual({ ok: true, result: { accepted: true } });
      proxy.delayMs = 0;
      const expected = outcome === 'paid' ? 'paid' : 'failed';
      await waitFor(async () => (await charge(opened.txid)).status === expected, {
        what: `the charge ${expected}`,
      });
    }
  });

  test('the same open delivered twice at once against a slow PSP makes one cob and one charge', async () => {
    proxy.delayMs = 500;
    const command = openCommand();
    const messageId = newPublicId('cmd');
    const [first, second] = await Promise.all([
      bed.client.request(openPixCharge, command, { timeoutMs: 15_000, messageId }),
      bed.client.request(openPixCharge, command, { timeoutMs: 15_000, messageId }),
    ]);
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    const again = await bed.client.request(openPixCharge, command, { timeoutMs: 15_000 });
    expect(again).toEqual(first);
    const rows = await bed.service.dataSource.query(`SELECT txid FROM charges WHERE payment_id = $1`, [
      command.payment_id,
    ]);
    expect(rows).toHaveLength(1);
  });

  test('a PIX whose callback never came is found by the overdue-callback poll: charge paid, reported once', async () => {
    const opened = await open();
    await payer.sandboxPay(opened.txid, null);
    const paid = await waitFor(
      async () => {
        const row = await charge(opened.txid);
        return row.status === 'paid' ? row : undefined;
      },
      { what: 'the charge paid through the poll' },
    );
    expect(paid.paid_end_to_end_id).toMatch(/^E[A-Za-z0-9]{31}$/);
    const found = await bed.service.dataSource.query(
      `SELECT outcome, source FROM callbacks_received WHERE txid = $1`,
      [opened.txid],
    );
    expect(found).toEqual([{ outcome: 'applied', source: 'poll' }]);
    expect(await outbox(opened.txid)).toEqual(['pix.charge.paid.v1']);
  });

  test('pix.charge.status.v1 answers what the PSP lists, applying a PIX nobody reported yet exactly once', async () => {
    const command = openCommand({ amount_centavos: 3100 });
    // Opened long ago as far as the poll is concerned: it must not be the one finding the PIX here.
    const opened = await open(command);
    await bed.service.dataSource.query(
      `UPDATE charges SET claimed_until = now() + interval '1 hour' WHERE txid = $1`,
      [opened.txid],
    );
    await payer.sandboxPay(opened.txid, null);
    const asked = await Promise.all(
      Array.from({ length: 3 }, () =>
        bed.client.request(getPixChargeStatus, { payment_id: command.payment_id }, { timeoutMs: 8000 }),
      ),
    );
    for (const reply of asked) {
      if (!reply.ok) throw new Error(JSON.stringify(reply.error));
      expect(reply.result).toMatchObject({
        txid: opened.txid,
        status: 'paid',
        pix: [{ end_to_end_id: expect.stringMatching(/^E/), amount_centavos: 3100 }],
        closure: null,
      });
    }
    expect(await outbox(opened.txid)).toEqual(['pix.charge.paid.v1']);
    const unknown = await bed.client.request(
      getPixChargeStatus,
      { payment_id: newPublicId('pay') },
      { timeoutMs: 8000 },
    );
    expect(unknown).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'Cobrança PIX não encontrada.' },
    });
  });
});
