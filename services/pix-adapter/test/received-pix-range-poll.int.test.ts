import { recordingLogger, waitFor } from '@gateway/testkit';
import { type RunningPspSimulator } from '@gateway/psp-simulator';
import { OverdueCallbackPoll } from '../src/application/overdue-callback-poll';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
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

  function pass(requestsPerMinute: number) {
    const { logger } = recordingLogger('pix-adapter');
    return new OverdueCallbackPoll({
      dataSource: bed.service.dataSource,
      uow: bed.service.unitOfWork('range-poll-test'),
      psp: payer,
      logger,
      unknownChargeGraceSeconds: 300,
      overdueSeconds: 60,
      recheckSeconds: 86_400,
      requestsPerMinute,
      intervalMs: 3_600_000,
    });
  }

  /** A new budget minute, as if the last one were over. */
  const nextMinute = () =>
    bed.service.dataSource.query(
      `UPDATE received_pix_poll SET window_started_at = now() - interval '2 minutes', leased_until = '-infinity'`,
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

  it('runs on one replica at a time: a second pass while the first holds it asks the PSP nothing', async () => {
    const [txid] = await paidWithoutCallback(1);
    await nextMinute();
    const first = pass(1000);
    const second = pass(1000);

    await Promise.all([first.runOnce(), second.runOnce()]);

    expect([first.lastPassRequests, second.lastPassRequests].sort()).toEqual([0, 2]);
    await chargeBecomes(bed, txid!, 'paid');
  });
});
