import { recordingLogger, waitFor } from '@gateway/testkit';
import { type RunningPspSimulator } from '@gateway/psp-simulator';
import { OverdueCallbackPoll } from '../src/application/overdue-callback-poll';
import { type ListPage, type ListedPix } from '../src/clients/psp/pix-lists';
import { leaseReceivedPixPoll, releaseReceivedPixPoll } from '../src/persistence/received-pix-poll-store';
import { SANDBOX_PSP_CLIENT } from '@gateway/config';
import { ApiPixClient } from '../src/clients/psp/api-pix-client';
import { takeFromBudget } from '../src/clients/psp/request-budget';
import {
  type AdapterBed,
  chargeBecomes,
  eventsAbout,
  openCharge,
  startAdapterAgainstSandboxPsp,
  storedCharge,
} from './support/adapter';

const OPEN_CHARGES = 3000;

/**
 * The overdue-callback pass reads the PSP's list of received Pix by period, so its requests follow the Pix received,
 * not the charges open; and it stays within its budget of requests per minute, however many charges wait.
 */
describe('the overdue-callback pass reads received Pix by period, within a request budget', () => {
  let bed: AdapterBed;
  let psp: RunningPspSimulator;
  let payer: ApiPixClient;

  beforeAll(async () => {
    ({ bed, psp, payer } = await startAdapterAgainstSandboxPsp('pix-range-poll', () => ({
      // Every callback is lost (nobody listens there), and the adapter's own pass stays out of the way: the
      // passes under test are the ones this file runs.
      CALLBACK_PUBLIC_URL: 'http://127.0.0.1:9',
      CALLBACK_POLL_INTERVAL_MS: '3600000',
      CHARGE_RECHECK_SECONDS: '86400',
    })));
    // Thousands of charges open and overdue, none paid: what a busy merchant's day leaves waiting.
    await bed.service.dataSource.query(
      `INSERT INTO charges (txid, payment_id, amount_centavos, status, revisao, location, merchant_name, copia_e_cola,
                            qr_code, expires_at, created_at, updated_at, claimed_until)
       SELECT 'open' || lpad(n::text, 28, '0'), 'pay_open' || lpad(n::text, 24, '0'), 1000, 'active', 0,
              'psp.example/qr/v2/' || n, 'Loja', 'code', 'data:image/png;base64,', now() + interval '1 hour',
              now() - interval '10 minutes', now(), now() + interval '1 day'
         FROM generate_series(1, $1) AS n`,
      [OPEN_CHARGES],
    );
  });

  afterAll(() => bed.close());

  const requestsAtPsp = () => ({
    lists: psp.faults.requestsSeen('GET', /\/pix$/),
    cobs: psp.faults.requestsSeen('GET', /\/cob\/[^/]+$/),
  });

  /** Charges opened now, paid at the PSP (their callbacks lost), made overdue as if opened ten minutes ago. */
  async function paidWithoutCallback(count: number): Promise<string[]> {
    const txids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const { txid } = await openCharge(bed);
      await payer.sandboxPay(txid, null);
      txids.push(txid);
    }
    await bed.service.dataSource.query(
      `UPDATE charges SET created_at = now() - interval '10 minutes' WHERE txid = ANY($1)`,
      [txids],
    );
    return txids;
  }

  function pass(
    requestsPerMinute: number,
    psp: ConstructorParameters<typeof OverdueCallbackPoll>[0]['psp'] = payer,
  ) {
    const { logger } = recordingLogger('pix-adapter');
    return new OverdueCallbackPoll({
      dataSource: bed.service.dataSource,
      uow: bed.service.unitOfWork('range-poll-test'),
      psp,
      logger,
      unknownChargeGraceSeconds: 300,
      overdueSeconds: 60,
      recheckSeconds: 86_400,
      requestsPerMinute,
      intervalMs: 3_600_000,
    });
  }

  /** A new budget minute, as if the last one were over (the sweep of the MED window not due: its own test makes it). */
  const nextMinute = (sweep: 'not due' | 'as it is' = 'not due') =>
    bed.service.dataSource.query(
      `UPDATE received_pix_poll SET window_started_at = now() - interval '2 minutes', leased_until = '-infinity'` +
        (sweep === 'not due' ? `, med_swept_at = now(), med_sweep_fim = NULL` : ''),
    );

  it(`finds the Pix of 3 paid charges among ${OPEN_CHARGES} open ones with one list page and 3 charge reads`, async () => {
    const txids = await paidWithoutCallback(3);
    await nextMinute();
    const before = requestsAtPsp();
    const poll = pass(1000);

    await poll.runOnce();

    const after = requestsAtPsp();
    const made = { lists: after.lists - before.lists, cobs: after.cobs - before.cobs };
    process.stdout.write(
      `overdue-callback pass with ${OPEN_CHARGES + 3} open charges, 3 paid: ${made.lists} list page(s) + ` +
        `${made.cobs} charge reads = ${poll.lastPassRequests} requests (one read per open charge: ${OPEN_CHARGES + 3})\n`,
    );
    expect(made).toEqual({ lists: 1, cobs: 3 });
    expect(poll.lastPassRequests).toBe(4);
    for (const txid of txids) {
      expect((await storedCharge(bed, txid)).status).toBe('paid');
      expect(await eventsAbout(bed, txid)).toEqual(['pix.charge.paid.v1']);
    }

    // Read again, the period shows nothing new: one page, no charge read, nothing reported twice.
    await poll.runOnce();
    expect(requestsAtPsp()).toEqual({ lists: after.lists + 1, cobs: after.cobs });
    for (const txid of txids) expect(await eventsAbout(bed, txid)).toEqual(['pix.charge.paid.v1']);
  });

  it('never makes more requests in a minute than its budget: what is left waits for the next minute', async () => {
    const txids = await paidWithoutCallback(3);
    await nextMinute();
    const poll = pass(2);
    const perPass: number[] = [];

    await poll.runOnce();
    perPass.push(poll.lastPassRequests);
    // Same minute: the budget is spent, the PSP is not asked.
    await poll.runOnce();
    perPass.push(poll.lastPassRequests);
    await waitFor(
      async () => {
        await nextMinute();
        await poll.runOnce();
        perPass.push(poll.lastPassRequests);
        const statuses = await Promise.all(txids.map(async (txid) => (await storedCharge(bed, txid)).status));
        return statuses.every((status) => status === 'paid');
      },
      { what: 'every paid charge to be found, a budget at a time' },
    );

    expect(perPass.slice(0, 2)).toEqual([2, 0]);
    expect(Math.max(...perPass)).toBeLessThanOrEqual(2);
    for (const txid of txids) expect(await eventsAbout(bed, txid)).toEqual(['pix.charge.paid.v1']);
  });

  it('counts every HTTP request against the budget, a call’s retries after a 429 included', async () => {
    await nextMinute();
    // Enough 429s that the client would retry past the budget if its retries were free.
    psp.faults.inject({ fault: { kind: 'rate-limit' }, count: 20, method: 'GET', path: /\/pix$/ });
    // The adapter's own kind of client: it retries a 429 (up to 5 times, backing off as the PSP asks).
    const retrying = new ApiPixClient(
      {
        baseUrl: psp.url,
        pathPrefix: '/v2',
        oauthTokenUrl: `${psp.url}/oauth/token`,
        clientId: SANDBOX_PSP_CLIENT.id,
        clientSecret: SANDBOX_PSP_CLIENT.secret,
        timeoutMs: 2000,
        maxRetries: 5,
      },
      { retryBaseDelayMs: 10, retryMaxDelayMs: 20 },
    );
    try {
      await retrying.getCharge((await openCharge(bed)).txid); // its token, fetched outside the pass
      const before = requestsAtPsp().lists;
      const poll = pass(3, retrying);

      await poll.runOnce();

      expect(requestsAtPsp().lists - before).toBe(3);
      expect(poll.lastPassRequests).toBe(3);
    } finally {
      psp.faults.clear();
      await retrying.close();
    }
  });

  it('runs on one replica at a time: a second pass while the first holds it asks the PSP nothing', async () => {
    const [txid] = await paidWithoutCallback(1);
    await nextMinute();
    const first = pass(1000);
    const second = pass(1000);

    await Promise.all([first.runOnce(), second.runOnce()]);

    expect([first.lastPassRequests, second.lastPassRequests].sort()).toEqual([0, 2]);
    await chargeBecomes(bed, txid!, 'paid');
  });

  /** The poll's mark: how far the list of received Pix has been read. */
  const mark = async (): Promise<Date | null> =>
    (
      (await bed.service.dataSource.query('SELECT polled_until FROM received_pix_poll')) as Array<{
        polled_until: Date | null;
      }>
    )[0]!.polled_until;

  /** A PSP whose list of received Pix has `pages` pages, the last one listing `pix`; charges read at the simulator. */
  function pagedPsp(pages: number, pix: ListedPix[], getCharge = (txid: string) => payer.getCharge(txid)) {
    const pagesAsked: number[] = [];
    return {
      pagesAsked,
      psp: {
        getCharge,
        receivedPixPage: async (_inicio: Date, _fim: Date, page: number): Promise<ListPage<ListedPix>> => {
          // One HTTP request, as the real client's would be.
          takeFromBudget();
          pagesAsked.push(page);
          return { items: page === pages - 1 ? pix : [], pages };
        },
      },
    };
  }

  async function listedPixOf(txid: string): Promise<ListedPix> {
    const { endToEndId, valor, horario } = (await payer.getCharge(txid)).pix![0]!;
    return { endToEndId, txid, valor, horario, devolucoes: [] };
  }

  it('reads every page of a period; a budget that ends inside the list keeps the mark where it was', async () => {
    const [txid] = await paidWithoutCallback(1);
    const listed = await listedPixOf(txid!);
    await nextMinute();
    const markBefore = await mark();
    const short = pagedPsp(3, [listed]);

    await pass(2, short.psp).runOnce();

    expect(short.pagesAsked).toEqual([0, 1]);
    expect(await mark()).toEqual(markBefore);
    expect((await storedCharge(bed, txid!)).status).toBe('active');

    await nextMinute();
    const whole = pagedPsp(3, [listed]);
    const poll = pass(10, whole.psp);
    await poll.runOnce();

    expect(whole.pagesAsked).toEqual([0, 1, 2]);
    expect(poll.lastPassRequests).toBe(4);
    expect((await storedCharge(bed, txid!)).status).toBe('paid');
    expect((await mark())!.getTime()).toBeGreaterThan(markBefore?.getTime() ?? 0);
  });

  it('keeps the mark when the PSP does not answer for a charge the list points to, and applies it next time', async () => {
    const [txid] = await paidWithoutCallback(1);
    const listed = await listedPixOf(txid!);
    await nextMinute();
    const markBefore = await mark();
    const down = pagedPsp(1, [listed], () => Promise.reject(new Error('connect ECONNREFUSED')));

    await pass(10, down.psp).runOnce();

    expect(await mark()).toEqual(markBefore);
    expect((await storedCharge(bed, txid!)).status).toBe('active');

    await nextMinute();
    await pass(10, pagedPsp(1, [listed]).psp).runOnce();
    expect((await storedCharge(bed, txid!)).status).toBe('paid');
    expect(await eventsAbout(bed, txid!)).toEqual(['pix.charge.paid.v1']);
  });

  it('sweeps the MED window within the same budget, going on from its page the next minute over the same period', async () => {
    await nextMinute();
    await bed.service.dataSource.query(`UPDATE received_pix_poll SET med_swept_at = '-infinity'`);
    const windowReads: Array<{ page: number; fim: number }> = [];
    const psp = {
      getCharge: (txid: string) => payer.getCharge(txid),
      receivedPixPage: async (inicio: Date, fim: Date, page: number): Promise<ListPage<ListedPix>> => {
        takeFromBudget();
        // The MED window is 80 days long; the period since the last read is minutes.
        if (fim.getTime() - inicio.getTime() < 30 * 24 * 3600 * 1000) return { items: [], pages: 1 };
        windowReads.push({ page, fim: fim.getTime() });
        return { items: [], pages: 3 };
      },
    };
    const poll = pass(2, psp);
    const sweep = async () =>
      (
        (await bed.service.dataSource.query(
          `SELECT med_sweep_page AS page, med_sweep_fim IS NULL AS idle, med_swept_at > now() - interval '1 minute'
                  AS swept FROM received_pix_poll`,
        )) as Array<{ page: number; idle: boolean; swept: boolean }>
      )[0];

    await poll.runOnce();
    expect(poll.lastPassRequests).toBe(2);
    expect(await sweep()).toEqual({ page: 1, idle: false, swept: false });
    await nextMinute('as it is');
    await poll.runOnce();
    await nextMinute('as it is');
    await poll.runOnce();

    expect(windowReads.map((read) => read.page)).toEqual([0, 1, 2]);
    expect(new Set(windowReads.map((read) => read.fim)).size).toBe(1);
    expect(await sweep()).toEqual({ page: 0, idle: true, swept: true });
    // Done: not due again for a quarter of an hour.
    await nextMinute('as it is');
    await poll.runOnce();
    expect(windowReads).toHaveLength(3);
  });

  it("a pass whose lease ran out and was taken moves neither the mark nor the other pass's lease", async () => {
    await nextMinute();
    const manager = bed.service.dataSource.manager;
    const options = {
      leaseSeconds: 60,
      requestsPerMinute: 10,
      overdueSeconds: 60,
      medSweepEverySeconds: 900,
    };
    const stale = await leaseReceivedPixPoll(manager, {
      ...options,
      owner: '00000000-0000-4000-8000-000000000001',
    });
    expect(stale).not.toBeNull();
    // Its lease runs out (a pass that hung); another replica takes the pass.
    await bed.service.dataSource.query(
      `UPDATE received_pix_poll SET leased_until = now() - interval '1 second'`,
    );
    const fresh = await leaseReceivedPixPoll(manager, {
      ...options,
      owner: '00000000-0000-4000-8000-000000000002',
    });
    expect(fresh).not.toBeNull();
    const markBefore = await mark();

    await releaseReceivedPixPoll(manager, {
      owner: '00000000-0000-4000-8000-000000000001',
      requests: 3,
      polledUntil: new Date(),
    });

    const [row] = (await bed.service.dataSource.query(
      'SELECT polled_until, leased_by, leased_until > now() AS held, window_requests FROM received_pix_poll',
    )) as Array<{ polled_until: Date | null; leased_by: string; held: boolean; window_requests: number }>;
    expect(row).toMatchObject({
      polled_until: markBefore,
      leased_by: '00000000-0000-4000-8000-000000000002',
      held: true,
      // Its requests were made all the same: they count.
      window_requests: 3,
    });
    await releaseReceivedPixPoll(manager, {
      owner: '00000000-0000-4000-8000-000000000002',
      requests: 0,
      polledUntil: null,
    });
  });
});
