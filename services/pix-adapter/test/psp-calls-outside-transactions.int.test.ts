import { getPixChargeStatus, newPublicId, openPixCharge, payoutRequested } from '@gateway/contracts';
import { connectionsIdleInTransaction, waitFor, startHttpProxy, type HttpProxy } from '@gateway/testkit';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import {
  type AdapterBed,
  anOpenPixCharge,
  chargeBecomes,
  eventsAbout,
  openCharge,
  simulateOutcome,
  startAdapterAgainstSandboxPsp,
} from './support/adapter';
import { aPayoutRequested, fundSandboxAccount } from './support/payout';

/** The PSP's answers take this long: within the adapter's PSP timeout, long enough to see what waits on them. */
const SLOW_PSP_MS = 1500;

describe('PIX adapter with a slow PSP and lost callbacks', () => {
  let bed: AdapterBed;
  let proxy: HttpProxy;
  let payer: ApiPixClient;

  beforeAll(async () => {
    ({ bed, payer } = await startAdapterAgainstSandboxPsp(
      'pix-adapter-slow',
      async (started, _env, cleanup) => {
        proxy = await startHttpProxy(started.url);
        cleanup.afterStop(() => proxy.close());
        return {
          PSP_BASE_URL: proxy.url,
          PSP_TIMEOUT_MS: '5000',
          PSP_MAX_RETRIES: '0',
          // Registered at the PSP but nobody listens there: every callback is lost.
          CALLBACK_PUBLIC_URL: 'http://127.0.0.1:9',
          EXPIRY_SWEEP_INTERVAL_MS: '200',
          CALLBACK_OVERDUE_SECONDS: '1',
          CALLBACK_POLL_INTERVAL_MS: '200',
          PAYOUT_OVERDUE_SECONDS: '1',
        };
      },
    ));
  });

  afterAll(() => bed.close());

  afterEach(() => {
    proxy.delayMs = 0;
  });

  const open = (command = anOpenPixCharge()) => openCharge(bed, command, { timeoutMs: 15_000 });

  /** Connections idle in a transaction for 500 ms or more: one waiting out the PSP's delay (1.5 s), never the instant
   * between two statements of a short transaction (the outbox relay's, a poller's), which a busy machine (two cores,
   * several test workers) was seen to stretch past 200 ms. */
  const idleInTransaction = () =>
    connectionsIdleInTransaction(bed.service.dataSource, bed.env.database.name, { forAtLeastMs: 500 });

  test('while opens and the expiry sweep wait on the PSP, no connection sits idle in a transaction', async () => {
    const expiring = await open();
    proxy.delayMs = SLOW_PSP_MS;
    const opens = Array.from({ length: 6 }, () => open());
    const expired = simulateOutcome(bed, expiring.payment_id, 'expired', null, { timeoutMs: 15_000 });
    // Six opens and the sweeper's re-read of the expired cob are at the PSP at once.
    await waitFor(() => proxy.inFlight >= 7, { what: 'the opens and the sweep waiting on the PSP' });
    let answered = false;
    const allOpened = Promise.all(opens).finally(() => (answered = true));
    // Sampled until the opens are answered, the whole of the PSP's delay.
    const idle: number[] = [];
    while (!answered) idle.push(await idleInTransaction());
    expect(idle.length).toBeGreaterThanOrEqual(5);
    expect(idle.filter((n) => n > 0)).toEqual([]);
    const opened = await allOpened;
    expect(new Set(opened.map((c) => c.txid)).size).toBe(6);
    expect((await expired).ok).toBe(true);
    await chargeBecomes(bed, expiring.txid, 'expired');
    expect(await eventsAbout(bed, expiring.txid)).toEqual(['pix.charge.closed.v1']);
  });

  test('while a simulated payment or removal waits on the PSP, no connection sits idle in a transaction', async () => {
    for (const outcome of ['paid', 'failed'] as const) {
      const opened = await open();
      proxy.delayMs = SLOW_PSP_MS;
      let answered = false;
      const reply = simulateOutcome(bed, opened.payment_id, outcome, null, { timeoutMs: 15_000 }).finally(
        () => (answered = true),
      );
      // Sampled until the answer: any transaction waiting out the PSP's delay shows up; short ones do not.
      const idle: number[] = [];
      while (!answered) idle.push(await idleInTransaction());
      expect(idle.length).toBeGreaterThanOrEqual(5);
      expect({ outcome, idle: idle.filter((n) => n > 0).length }).toEqual({ outcome, idle: 0 });
      expect(await reply).toEqual({ ok: true, result: { accepted: true } });
      proxy.delayMs = 0;
      const expected = outcome === 'paid' ? 'paid' : 'failed';
      await chargeBecomes(bed, opened.txid, expected);
    }
  });

  test('while payouts wait on the PSP (the send, then the poll reading it), no connection sits idle in a transaction', async () => {
    await fundSandboxAccount(payer, 10_000);
    const requests = Array.from({ length: 3 }, () => aPayoutRequested({ amount_centavos: 1000 }));
    const ids = requests.map((request) => request.payout_id);
    proxy.delayMs = SLOW_PSP_MS;
    for (const request of requests) await bed.client.publish(payoutRequested, request);
    const paid = async (): Promise<number> =>
      (
        await bed.service.dataSource.query(
          `SELECT count(*)::int AS n FROM payouts WHERE payout_id = ANY($1) AND status = 'paid'`,
          [ids],
        )
      )[0].n;
    // Sampled until every payout is paid (its callback lost: the poll's reads settle them), the PSP slow throughout.
    const idle: number[] = [];
    await waitFor(
      async () => {
        idle.push(await idleInTransaction());
        return (await paid()) === requests.length;
      },
      { what: 'the payouts paid through a slow PSP', timeoutMs: 30_000 },
    );
    expect(idle.length).toBeGreaterThanOrEqual(5);
    expect(idle.filter((n) => n > 0)).toEqual([]);
  });

  test('the same open delivered twice at once against a slow PSP makes one cob and one charge', async () => {
    proxy.delayMs = 500;
    const command = anOpenPixCharge();
    const messageId = newPublicId('cmd');
    const [first, second] = await Promise.all([
      bed.request(openPixCharge, command, { timeoutMs: 15_000, messageId }),
      bed.request(openPixCharge, command, { timeoutMs: 15_000, messageId }),
    ]);
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    const again = await bed.request(openPixCharge, command, { timeoutMs: 15_000 });
    expect(again).toEqual(first);
    const rows = await bed.service.dataSource.query(`SELECT txid FROM charges WHERE payment_id = $1`, [
      command.payment_id,
    ]);
    expect(rows).toHaveLength(1);
  });

  test('a PIX whose callback never came is found by the overdue-callback poll: charge paid, reported once', async () => {
    const opened = await open();
    await payer.sandboxPay(opened.txid, null);
    const paid = await chargeBecomes(bed, opened.txid, 'paid');
    expect(paid.paid_end_to_end_id).toMatch(/^E[A-Za-z0-9]{31}$/);
    const found = await bed.service.dataSource.query(
      `SELECT outcome, source FROM callbacks_received WHERE txid = $1`,
      [opened.txid],
    );
    expect(found).toEqual([{ outcome: 'applied', source: 'poll' }]);
    expect(await eventsAbout(bed, opened.txid)).toEqual(['pix.charge.paid.v1']);
  });

  test('pix.charge.status.v1 answers what the PSP lists, applying a PIX nobody reported yet exactly once', async () => {
    const command = anOpenPixCharge({ amount_centavos: 3100 });
    // Opened long ago as far as the poll is concerned: it must not be the one finding the PIX here.
    const opened = await open(command);
    await bed.service.dataSource.query(
      `UPDATE charges SET claimed_until = now() + interval '1 hour' WHERE txid = $1`,
      [opened.txid],
    );
    await payer.sandboxPay(opened.txid, null);
    const asked = await Promise.all(
      Array.from({ length: 3 }, () =>
        bed.request(getPixChargeStatus, { payment_id: command.payment_id }, { timeoutMs: 8000 }),
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
    expect(await eventsAbout(bed, opened.txid)).toEqual(['pix.charge.paid.v1']);
    const unknown = await bed.request(
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
