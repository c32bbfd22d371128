import { changeCryptoRequestAmount, cryptoRequestClosed } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { WatcherHarness } from './support/watcher';
import { type RpcModes } from './support/localnet';

/** A public endpoint's budget per method: 40 getTransaction and 40 getSignaturesForAddress per 10 s, 100 of others. */
const PUBLIC_ENDPOINT_LIMIT = {
  windowMs: 10_000,
  perMethod: { getTransaction: 40, getSignaturesForAddress: 40, '*': 100 },
};

type Opened = Awaited<ReturnType<WatcherHarness['open']>>;

/** Opens `count` requests, then, with the watcher stopped, pays each in full and gives the chain `modes`. */
async function paidBacklog(
  harness: WatcherHarness,
  count: number,
  modes: Partial<RpcModes>,
): Promise<Opened[]> {
  const requests: Opened[] = [];
  while (requests.length < count)
    requests.push(...(await Promise.all(Array.from({ length: 10 }, () => harness.open()))));
  await harness.restart(async () => {
    for (const request of requests) await harness.pay(request.reference, BigInt(request.amount_base_units));
    harness.localnet.setModes(modes);
  });
  return requests;
}

async function settledCount(harness: WatcherHarness, requests: Opened[]): Promise<number> {
  const [row] = await harness.service.dataSource.query(
    `SELECT count(*)::int AS settled FROM payment_requests WHERE reference = ANY($1) AND status = 'settled'`,
    [requests.map((request) => request.reference)],
  );
  return (row as { settled: number }).settled;
}

function allSettled(harness: WatcherHarness, requests: Opened[], timeoutMs: number): Promise<true> {
  return waitFor(async () => (await settledCount(harness, requests)) === requests.length || undefined, {
    timeoutMs,
    what: `${requests.length} requests settled`,
  });
}

describe('a watcher facing an RPC that allows 40 getTransaction per 10 s', () => {
  let harness: WatcherHarness | undefined;
  afterEach(() => harness?.close());

  test('at its production budget (4 requests per second) it records every one of 60 paid requests, reading each transaction once', async () => {
    harness = await WatcherHarness.start({
      env: { SOLANA_RPC_REQUESTS_PER_SECOND: '4', POLL_INTERVAL_MS: '1000' },
    });
    const served = harness.localnet.traffic.servedOf('getTransaction');
    const requests = await paidBacklog(harness, 60, {
      rateLimit: { ...PUBLIC_ENDPOINT_LIMIT, retryAfter: 'never' },
    });
    await allSettled(harness, requests, 60_000);
    for (const request of requests) await harness.settled(request.payment_id);
    expect(harness.localnet.traffic.servedOf('getTransaction') - served).toBe(60);
  }, 120_000);

  test('over budget (20 per second), it waits out 429s with and without Retry-After and still records all 60', async () => {
    harness = await WatcherHarness.start({
      env: { SOLANA_RPC_REQUESTS_PER_SECOND: '20', POLL_INTERVAL_MS: '1000' },
    });
    const served = harness.localnet.traffic.servedOf('getTransaction');
    const requests = await paidBacklog(harness, 60, {
      rateLimit: { ...PUBLIC_ENDPOINT_LIMIT, retryAfter: 'alternate' },
    });
    await allSettled(harness, requests, 90_000);
    expect(harness.localnet.traffic.refused).toBeGreaterThan(0);
    // Rate limits were waited out inside the pass: no transaction was read twice.
    expect(harness.localnet.traffic.servedOf('getTransaction') - served).toBe(60);
  }, 150_000);
});

describe('scan progress and commitment', () => {
  const harness = WatcherHarness.forTheseTests({ env: { SOLANA_RPC_REQUESTS_PER_SECOND: '5' } });
  afterEach(() =>
    harness.localnet.setModes({ rateLimit: null, confirmedLagMs: 0, finalizedLagMs: 0, transactionLagMs: 0 }),
  );

  test('a pass failing midway keeps what it read, and the next pass resumes after it', async () => {
    const served = harness.localnet.traffic.servedOf('getTransaction');
    const requests = await paidBacklog(harness, 30, {});
    await waitFor(
      async () => {
        const [row] = await harness.service.dataSource.query(
          'SELECT count(*)::int AS recorded FROM transfers WHERE reference = ANY($1)',
          [requests.map((request) => request.reference)],
        );
        return (row as { recorded: number }).recorded >= 10 || undefined;
      },
      { what: 'a first page recorded' },
    );
    // Six server errors in a row: the request in flight gives up and the pass fails.
    harness.proxy.failNext(6, 500);
    await allSettled(harness, requests, 60_000);
    expect(harness.proxy.failuresServed()).toBe(6);
    expect(harness.localnet.traffic.servedOf('getTransaction') - served).toBe(30);
  }, 90_000);

  test('a listed transaction the RPC does not serve yet is read later, and its request does not expire meanwhile', async () => {
    harness.localnet.setModes({ transactionLagMs: 4_000 });
    const request = await harness.open();
    await harness.service.dataSource.query(
      `UPDATE payment_requests SET expires_at = $2 WHERE reference = $1`,
      [request.reference, new Date(Date.now() + 1_500)],
    );
    const signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
    const settled = await harness.settled(request.payment_id, 20_000);
    expect(settled.payload).toMatchObject({ signature });
    expect(harness.eventsFor(request.payment_id).map((event) => event.name)).not.toContain(
      cryptoRequestClosed.name,
    );
  }, 30_000);

  test('a transfer is seen at confirmed and settles only once finalized', async () => {
    harness.localnet.setModes({ confirmedLagMs: 200, finalizedLagMs: 3_000 });
    const request = await harness.open();
    const paidAt = Date.now();
    await harness.pay(request.reference, BigInt(request.amount_base_units));
    await harness.settled(request.payment_id, 20_000);
    expect(Date.now() - paidAt).toBeGreaterThanOrEqual(3_000);
  }, 30_000);

  test('an amount change while a full transfer to the request awaits finality never supersedes it', async () => {
    harness.localnet.setModes({ confirmedLagMs: 200, finalizedLagMs: 3_000 });
    const request = await harness.open();
    await harness.pay(request.reference, BigInt(request.amount_base_units));
    await waitFor(
      async () => {
        const listed = await harness.localnet.ledger.signaturesFor(request.reference);
        return listed.length > 0 || undefined;
      },
      { what: 'the transfer landed' },
    );
    const reply = await harness.bed.request(
      changeCryptoRequestAmount,
      { payment_id: request.payment_id, business_name: 'Padaria Pão Quente', amount_centavos: 20_000 },
      { timeoutMs: 15_000 },
    );
    // Answered "try again" while the transfer is not final, or refused once it settled the request.
    expect(reply.ok ? 'changed' : reply.error.code).toMatch(/^(SERVICE_UNAVAILABLE|INVALID_STATUS)$/);
    await harness.settled(request.payment_id, 20_000);
    expect((await harness.request(request.reference)).status).toBe('settled');
  }, 40_000);
});
