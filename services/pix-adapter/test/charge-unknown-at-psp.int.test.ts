import { recordingLogger, waitFor } from '@gateway/testkit';
import { readChargeStatus } from '../src/application/read-charge-status';
import { OverdueCallbackPoll } from '../src/application/overdue-callback-poll';
import { UNKNOWN_AT_PSP_DETAIL } from '../src/application/shared/charge-unknown-at-psp';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import {
  type AdapterBed,
  eventsAbout,
  openCharge,
  startAdapterAgainstSandboxPsp,
  storedCharge,
} from './support/adapter';

const GRACE_SECONDS = 2;

describe('a charge the PSP does not know', () => {
  let bed: AdapterBed;
  let payer: ApiPixClient;

  beforeAll(async () => {
    ({ bed, payer } = await startAdapterAgainstSandboxPsp('pix-adapter-unknown-charge', () => ({
      PSP_UNKNOWN_CHARGE_GRACE_SECONDS: String(GRACE_SECONDS),
      // The adapter's own poll leaves the charge to the passes this test runs and watches.
      CALLBACK_OVERDUE_SECONDS: '3600',
    })));
  });

  afterAll(() => bed.close());

  /** What the adapter's passes run on (its database, the PSP), with a logger that keeps what they say. */
  function passesLogged(unknownChargeGraceSeconds: number) {
    const { logger, lines } = recordingLogger('pix-adapter');
    const deps = {
      dataSource: bed.service.dataSource,
      uow: bed.service.unitOfWork('unknown-charge-test'),
      psp: payer,
      logger,
      unknownChargeGraceSeconds,
    };
    return { deps, lines };
  }

  it('is logged once over several reconciliation passes, then fails through the normal closure after the grace', async () => {
    const { txid, payment_id: paymentId } = await openCharge(bed);
    // The PSP loses the cob (a bank that forgot its books, a sandbox reset): it answers 404 for it from now on.
    await bed.service.dataSource.query('DELETE FROM psp_simulator.cobs WHERE txid = $1', [txid]);
    const { deps, lines } = passesLogged(GRACE_SECONDS);
    const poll = new OverdueCallbackPoll({
      ...deps,
      overdueSeconds: 0,
      recheckSeconds: 0,
      requestsPerMinute: 1000,
      intervalMs: 60_000,
    });
    const unknownLines = () =>
      lines.filter((line) => String(line.msg).startsWith('charge unknown at the PSP'));

    // Passes of the payment service's reconciliation (a status read each) and of the overdue-callback poll.
    for (let pass = 0; pass < 3; pass++) await readChargeStatus(deps, paymentId);
    await poll.runOnce();
    const during = await storedCharge(bed, txid);
    const loggedDuring = unknownLines().length;

    await waitFor(
      async () => {
        const [row] = (await bed.service.dataSource.query(
          `SELECT unknown_at_psp_since <= now() - $2 * interval '1 second' AS due FROM charges WHERE txid = $1`,
          [txid, GRACE_SECONDS],
        )) as Array<{ due: boolean }>;
        return row?.due;
      },
      { what: 'the grace period to pass' },
    );
    const after = await readChargeStatus(deps, paymentId);
    const again = await readChargeStatus(deps, paymentId);

    expect(during.status).toBe('active');
    expect(loggedDuring).toBe(1);
    expect(unknownLines()).toEqual([
      expect.objectContaining({ level: 40, txid, fails_after_seconds: GRACE_SECONDS }),
      expect.objectContaining({
        level: 30,
        txid,
        payment_id: paymentId,
        msg: 'charge unknown at the PSP failed',
      }),
    ]);
    expect(after.charge.status).toBe('failed');
    expect(again.charge.status).toBe('failed');
    expect(await eventsAbout(bed, txid)).toEqual(['pix.charge.closed.v1']);
    const [closed] = (await bed.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox WHERE envelope->'payload'->>'txid' = $1`,
      [txid],
    )) as Array<{ payload: Record<string, unknown> }>;
    expect(closed!.payload).toMatchObject({
      payment_id: paymentId,
      reason: 'failed',
      detail: UNKNOWN_AT_PSP_DETAIL,
      received_pix: [],
    });
  });

  it('a charge the PSP knows is never noted, however often it is read', async () => {
    const { txid, payment_id: paymentId } = await openCharge(bed);
    const { deps, lines } = passesLogged(0);
    for (let pass = 0; pass < 3; pass++) await readChargeStatus(deps, paymentId);

    expect(lines).toEqual([]);
    expect(await storedCharge(bed, txid)).toMatchObject({ status: 'active' });
  });
});
