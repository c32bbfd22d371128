import { DataSource } from 'typeorm';
import {
  letTimePass,
  stackClient,
  startStack,
  waitFor,
  type RunningStack,
  type StackClient,
} from '@gateway/testkit';

/**
 * The whole stack through the public API, with the local chain: a crypto amount change racing the end of the
 * payment's window ends the same way in the watcher and in the payment service, and the money received before it is
 * never dropped.
 */
describe('crypto settlement across the stack', () => {
  let stack: RunningStack;
  let apiKey: string;
  /** The watcher's own tables, to put a request's window end where the race needs it. */
  let watcherDb: DataSource;

  let client: StackClient;
  const api = (method: string, path: string, body?: unknown) => client.api(apiKey, method, path, body);

  beforeAll(async () => {
    stack = await startStack();
    client = stackClient(stack);
    ({ apiKey } = await client.createBusiness('Padaria São João', {
      crypto: { percent_bps: 150, fixed_centavos: 10 },
    }));
    watcherDb = await new DataSource({
      type: 'postgres',
      url: stack.env.config.DATABASE_URL,
      extra: { max: 2, options: '-c search_path=solana_watcher' },
    }).initialize();
  }, 150_000);

  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await watcherDb?.destroy();
    await stack?.stop();
  });

  /** Detection passes the stack's watcher has completed, as its metrics report them. */
  const scanPasses = async (): Promise<number> => {
    const metrics = await (await fetch(`${stack.metricsUrls['solana-watcher']}/metrics`)).text();
    const passes = /^solana_watcher_scans_total\{[^}]*outcome="scanned"[^}]*\} (\d+)/m.exec(metrics);
    return Number(passes?.[1] ?? 0);
  };

  /** Waits for two more passes: they never overlap, so the second began after this call. */
  const nextFullScan = async () => {
    const before = await scanPasses();
    await waitFor(async () => (await scanPasses()) >= before + 2, {
      timeoutMs: 20_000,
      what: 'a detection pass from now',
    });
  };

  const partialFunds = async (paymentId: string) => {
    const { status, body } = await api('GET', `/v1/payments/${paymentId}/received-funds`);
    expect(status).toBe(200);
    return (body.data as Array<Record<string, unknown>>).map((item) => ({
      kind: item.kind,
      reference: item.reference,
      amount_token: item.amount_token,
    }));
  };

  /** A new USDC payment of `amount`: its id, and the reference its transfers carry on the chain. */
  const newUsdcPayment = async (amount: number) => {
    const created = await client.createPayment(apiKey, {
      payment_method: 'crypto',
      amount,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    const reference = new URL(created.crypto.payment_link).searchParams.get('reference')!;
    return { paymentId: created.payment_id as string, reference };
  };

  /**
   * When each try's change is sent, relative to the window's end: from well before it (a change takes a few hundred
   * milliseconds on a busy machine: a last chain scan of the old reference, paced RPC calls) to after it.
   */
  const SEND_OFFSETS_MS = [-1000, -600, -350, -200, -100, -25, 50, 150];

  test('an amount change racing the window end is either made (keeping the partial) or refused and the payment fails UNDERPAID (many tries)', async () => {
    const outcomes = { changed: 0, refused: 0 };
    for (let attempt = 0; attempt < SEND_OFFSETS_MS.length; attempt += 1) {
      const { paymentId, reference } = await newUsdcPayment(10000);
      expect(
        (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid', amount: 4000 }))
          .status,
      ).toBe(202);
      const [transfer] = await waitFor(
        async () => {
          const rows: Array<{ amount: string }> = await watcherDb.query(
            `SELECT amount::text AS amount FROM transfers WHERE reference = $1 AND applied_to = 'payment'`,
            [reference],
          );
          return rows.length > 0 ? rows : undefined;
        },
        { timeoutMs: 20_000, what: 'the partial transfer detected' },
      );
      // Far enough ahead for the earliest send to be a full second inside the window.
      const windowEnd = new Date(Date.now() + 1_100 + Math.floor(Math.random() * 150));
      await watcherDb.query('UPDATE payment_requests SET expires_at = $2 WHERE reference = $1', [
        reference,
        windowEnd,
      ]);
      const sendAt = windowEnd.getTime() + SEND_OFFSETS_MS[attempt]! + Math.floor(Math.random() * 50);
      await letTimePass(Math.max(0, sendAt - Date.now()));
      const changed = await api('PATCH', `/v1/payments/${paymentId}`, { amount: 12000 });

      // USDC has 6 decimals.
      const partial = { kind: 'partial', reference, amount_token: Number(transfer!.amount) / 1e6 };
      if (changed.status === 200) {
        outcomes.changed += 1;
        expect(changed.body).toMatchObject({ status: 'pending', amount: 120 });
        // Made while the old window was open: the new window does not reopen an expired payment.
        const [revised] = await watcherDb.query(
          `SELECT created_at FROM payment_requests WHERE payment_id = $1 AND status = 'open'`,
          [paymentId],
        );
        expect(revised.created_at.getTime()).toBeLessThan(windowEnd.getTime());
        // A detection pass begun once the old window had ended closed nothing (the stack's grace is none).
        await waitFor(() => Date.now() > windowEnd.getTime(), { what: 'the old window to end' });
        await nextFullScan();
        const [{ closed }] = await watcherDb.query(
          `SELECT count(*)::int AS closed FROM outbox WHERE name = 'crypto.request.closed.v1'
              AND envelope->'payload'->>'reference' = $1`,
          [reference],
        );
        expect(closed).toBe(0);
        expect((await api('GET', `/v1/payments/${paymentId}`)).body).toMatchObject({
          status: 'pending',
          amount_brl: 120,
        });
        expect(await partialFunds(paymentId)).toEqual([partial]);
      } else {
        outcomes.refused += 1;
        expect(changed).toMatchObject({ status: 422, body: { error: { code: 'INVALID_STATUS' } } });
        const failed = await client.paymentIn(apiKey, paymentId, 'failed', 20_000);
        expect(failed).toMatchObject({ amount_brl: 100, failure_code: 'UNDERPAID' });
        expect(await partialFunds(paymentId)).toEqual([partial]);
      }
    }
    // The sends straddle the window's end by more than a change takes, so both orders happen.
    expect(outcomes.changed).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  }, 240_000);

  test('a transfer that landed just before an amount change counts for the old amount: in full the payment is paid and the change refused, a part is recorded and an expiry fails it UNDERPAID (many tries)', async () => {
    const waitForStatus = (paymentId: string, status: string) =>
      client.paymentIn(apiKey, paymentId, status, 20_000);
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const full = attempt % 2 === 0;
      const { paymentId, reference } = await newUsdcPayment(5000);
      const simulated = await api(
        'POST',
        `/v1/sandbox/payments/${paymentId}/simulate`,
        full ? { outcome: 'paid' } : { outcome: 'paid', amount: 2000 },
      );
      expect(simulated.status).toBe(202);
      const changed = await api('PATCH', `/v1/payments/${paymentId}`, { amount: 6000 });

      const [transfer]: Array<{ amount: string; applied_to: string }> = await watcherDb.query(
        'SELECT amount::text AS amount, applied_to FROM transfers WHERE reference = $1',
        [reference],
      );
      expect(transfer).toMatchObject({ applied_to: 'payment' });
      if (full) {
        expect(changed).toMatchObject({ status: 422, body: { error: { code: 'INVALID_STATUS' } } });
        expect(await waitForStatus(paymentId, 'paid')).toMatchObject({ amount_brl: 50 });
        expect(await partialFunds(paymentId)).toEqual([]);
      } else {
        expect(changed).toMatchObject({ status: 200, body: { status: 'pending', amount: 60 } });
        // USDC has 6 decimals.
        const partial = { kind: 'partial', reference, amount_token: Number(transfer!.amount) / 1e6 };
        expect(await partialFunds(paymentId)).toEqual([partial]);
        expect(
          (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'expired' })).status,
        ).toBe(202);
        expect(await waitForStatus(paymentId, 'failed')).toMatchObject({
          amount_brl: 60,
          failure_code: 'UNDERPAID',
        });
        expect(await partialFunds(paymentId)).toEqual([partial]);
      }
    }
  }, 240_000);
});
