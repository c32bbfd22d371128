import { newPublicId, simulateCryptoOutcome } from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { connectionsIdleInTransaction, untilAnsweredOk } from '@gateway/testkit';
import { WatcherHarness, closureOf } from './support/watcher';

describe('crypto.request.simulate.v1 (sandbox)', () => {
  const harness = WatcherHarness.forTheseTests();

  test('paid: the test wallet sends the full amount on chain and the detector settles the request', async () => {
    const request = await harness.open();
    const reply = await harness.simulate(request.payment_id, 'paid', null, { timeoutMs: 10_000 });
    expect(reply).toEqual({ ok: true, result: { accepted: true } });
    const settled = await harness.settled(request.payment_id);
    const [transfer] = await harness.transfers(request.reference);
    expect(transfer).toMatchObject({ applied_to: 'payment', amount: request.amount_base_units });
    expect(settled.payload).toMatchObject({
      signature: transfer?.signature,
      received_base_units: request.amount_base_units,
      excess_base_units: '0',
    });
  });

  test('paid with an amount: the test wallet sends that part, converted with the locked quote', async () => {
    const request = await harness.open({ amount_centavos: 10_000, token: 'usdc' });
    const reply = await harness.simulate(request.payment_id, 'paid', 2_500, { timeoutMs: 10_000 });
    expect(reply.ok).toBe(true);
    // R$ 25,00 at the locked 0.18 USDC per BRL
    const [transfer] = await harness.waitForTransfers(request.reference, 1);
    expect(transfer).toMatchObject({ applied_to: 'payment', amount: '4500000' });
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'open',
      received_base_units: '4500000',
    });
  });

  test('expired: the window is moved into the past and the expiry worker closes the request', async () => {
    const request = await harness.open();
    const reply = await harness.simulate(request.payment_id, 'expired');
    expect(reply.ok).toBe(true);
    const closed = await harness.closed(request.payment_id);
    expect(closed.payload).toEqual(closureOf(request, 'expired', '0'));
  });

  test('failed: nothing is sent and the request closes as failed', async () => {
    const request = await harness.open();
    const reply = await harness.simulate(request.payment_id, 'failed');
    expect(reply.ok).toBe(true);
    const closed = await harness.closed(request.payment_id);
    expect(closed.payload).toMatchObject({ reason: 'failed', received_base_units: '0' });
    expect((await harness.request(request.reference)).status).toBe('failed');
    expect(await harness.transfers(request.reference)).toEqual([]);
  });

  test('simulating on a request that is no longer open is refused with INVALID_STATUS', async () => {
    const request = await harness.open();
    await harness.simulate(request.payment_id, 'failed');
    const reply = await harness.simulate(request.payment_id, 'paid');
    expect(reply).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('failed') },
    });
  });

  test('paid for more than the test wallet holds is refused with INVALID_AMOUNT at once, and nothing is sent', async () => {
    // R$ 100 million: far more than the million test tokens of each stablecoin the wallet is seeded with.
    const request = await harness.open({ amount_centavos: 10_000_000_000, token: 'usdc' });
    const reply = await harness.simulate(request.payment_id, 'paid');
    expect(reply).toEqual({
      ok: false,
      error: { code: 'INVALID_AMOUNT', message: 'A carteira de teste não tem saldo para pagar esse valor.' },
    });
    expect(await harness.transfers(request.reference)).toEqual([]);
  });

  test('when the same paid simulation is delivered twice, the test wallet pays once', async () => {
    const request = await harness.open();
    const messageId = newPublicId('cmd');
    const first = await harness.simulate(request.payment_id, 'paid', 1_000, { timeoutMs: 10_000, messageId });
    const second = await harness.simulate(request.payment_id, 'paid', 1_000, {
      timeoutMs: 10_000,
      messageId,
    });
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    // Both answered, so both handled: every payment they made has landed, and the chain holds one.
    expect(harness.localnet.ledger.signaturesFor(request.reference)).toHaveLength(1);
    await harness.waitForTransfers(request.reference, 1);
  });

  /**
   * The database lost between the wallet's payment and the answer's commit, as in an outage: the trigger fails the
   * statement that records this command's answer, and only that one.
   */
  async function losingTheAnswerTo(messageId: string, work: () => Promise<void>): Promise<void> {
    const name = `lose_answer_${messageId.replace(/\W/g, '_')}`.toLowerCase();
    const db = harness.service.dataSource;
    await db.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'the answer is lost' USING ERRCODE = '23514'; END $$`);
    await db.query(`CREATE TRIGGER ${name} BEFORE UPDATE ON inbox FOR EACH ROW
      WHEN (NEW.message_id = '${messageId}' AND NEW.result IS NOT NULL) EXECUTE FUNCTION ${name}()`);
    try {
      await work();
    } finally {
      await db.query(`DROP TRIGGER ${name} ON inbox`);
      await db.query(`DROP FUNCTION ${name}()`);
    }
  }

  test('a paid simulation whose answer was lost after the wallet paid is accepted when delivered again, though its payment settled the request, and nothing more is paid', async () => {
    const request = await harness.open();
    const messageId = newPublicId('cmd');
    await losingTheAnswerTo(messageId, async () => {
      const first = await harness.simulate(request.payment_id, 'paid', null, {
        timeoutMs: 10_000,
        messageId,
      });
      expect(first.ok).toBe(false);
      await harness.settled(request.payment_id);
    });
    const again = await harness.simulate(request.payment_id, 'paid', null, { timeoutMs: 10_000, messageId });
    expect(again).toEqual({ ok: true, result: { accepted: true } });
    expect(harness.localnet.ledger.signaturesFor(request.reference)).toHaveLength(1);
  });

  test('a partial paid simulation whose answer was lost is not paid a second time when delivered again', async () => {
    const request = await harness.open();
    const messageId = newPublicId('cmd');
    await losingTheAnswerTo(messageId, async () => {
      const first = await harness.simulate(request.payment_id, 'paid', 1_000, {
        timeoutMs: 10_000,
        messageId,
      });
      expect(first.ok).toBe(false);
      await harness.waitForTransfers(request.reference, 1);
    });
    const again = await harness.simulate(request.payment_id, 'paid', 1_000, { timeoutMs: 10_000, messageId });
    expect(again).toEqual({ ok: true, result: { accepted: true } });
    expect(harness.localnet.ledger.signaturesFor(request.reference)).toHaveLength(1);
    expect(await harness.request(request.reference)).toMatchObject({ status: 'open' });
  });

  test('two deliveries of the same paid simulation at once are both accepted, and one transfer lands', async () => {
    for (let round = 0; round < 5; round++) {
      const request = await harness.open();
      const messageId = newPublicId('cmd');
      const send = () =>
        harness.simulate(request.payment_id, 'paid', 1_000, { timeoutMs: 15_000, messageId });
      const answers = await Promise.all([send(), send()]);
      expect(answers).toEqual([
        { ok: true, result: { accepted: true } },
        { ok: true, result: { accepted: true } },
      ]);
      expect(harness.localnet.ledger.signaturesFor(request.reference)).toHaveLength(1);
    }
  });

  test('a transaction kept for a paid simulation and never sent (the watcher died) is sent as it is by the next delivery', async () => {
    const request = await harness.open();
    const messageId = newPublicId('cmd');
    const kept = await harness.keptUnsent(messageId, request.reference, 1_000_000n);
    const reply = await harness.simulate(request.payment_id, 'paid', 1_000, { timeoutMs: 10_000, messageId });
    expect(reply).toEqual({ ok: true, result: { accepted: true } });
    expect(harness.localnet.ledger.signaturesFor(request.reference)).toEqual([kept.signature]);
    const [transfer] = await harness.waitForTransfers(request.reference, 1);
    expect(transfer).toMatchObject({ signature: kept.signature, amount: '1000000' });
  });

  test('a transaction kept for a paid simulation and never sent, for a request closed since, is not sent: INVALID_STATUS', async () => {
    const request = await harness.open();
    const messageId = newPublicId('cmd');
    await harness.keptUnsent(messageId, request.reference, 1_000_000n);
    expect((await harness.simulate(request.payment_id, 'failed')).ok).toBe(true);
    const reply = await harness.simulate(request.payment_id, 'paid', 1_000, { timeoutMs: 10_000, messageId });
    expect(reply).toEqual({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('failed') },
    });
    expect(harness.localnet.ledger.signaturesFor(request.reference)).toEqual([]);
  });

  test('a paid simulation whose transaction the cluster dropped is answered unavailable, and the delivery again sends the same transaction', async () => {
    const request = await harness.open();
    const messageId = newPublicId('cmd');
    harness.localnet.setModes({ dropTransactions: true });
    let first;
    try {
      first = await harness.simulate(request.payment_id, 'paid', 1_000, { timeoutMs: 30_000, messageId });
    } finally {
      harness.localnet.setModes({ dropTransactions: false });
    }
    expect(first).toEqual({ ok: false, error: expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }) });
    expect(harness.localnet.ledger.signaturesFor(request.reference)).toEqual([]);
    const [kept] = (await harness.service.dataSource.query(
      `SELECT signature FROM sandbox_wallet_payments WHERE message_id = $1`,
      [messageId],
    )) as Array<{ signature: string }>;
    const again = await harness.simulate(request.payment_id, 'paid', 1_000, { timeoutMs: 30_000, messageId });
    expect(again).toEqual({ ok: true, result: { accepted: true } });
    expect(harness.localnet.ledger.signaturesFor(request.reference)).toEqual([kept!.signature]);
  }, 60_000);

  test('a transaction kept for a paid simulation that expired unsent is replaced, and only the new one pays', async () => {
    const request = await harness.open();
    const messageId = newPublicId('cmd');
    const kept = await harness.keptUnsent(messageId, request.reference, 1_000_000n);
    harness.localnet.ledger.skipSlots(200);
    const reply = await harness.simulate(request.payment_id, 'paid', 1_000, { timeoutMs: 10_000, messageId });
    expect(reply).toEqual({ ok: true, result: { accepted: true } });
    const signatures = harness.localnet.ledger.signaturesFor(request.reference);
    expect(signatures).toHaveLength(1);
    expect(signatures).not.toContain(kept.signature);
    // R$ 10,00 at the locked 0.18 USDC per BRL
    const [transfer] = await harness.waitForTransfers(request.reference, 1);
    expect(transfer).toMatchObject({ amount: '1800000' });
  });

  test('while the test wallet waits on a slow chain, no connection sits idle in a transaction', async () => {
    const request = await harness.open();
    const [{ database }] = await harness.service.dataSource.query('SELECT current_database() AS database');
    harness.proxy.delayMs = 300;
    try {
      let answered = false;
      const reply = harness
        .simulate(request.payment_id, 'paid', 1_000, { timeoutMs: 20_000 })
        .finally(() => (answered = true));
      // Sampled until the answer: a transaction waiting out the chain shows up; short ones do not.
      const idle: number[] = [];
      while (!answered)
        idle.push(
          await connectionsIdleInTransaction(harness.service.dataSource, database, { forAtLeastMs: 200 }),
        );
      expect(idle.length).toBeGreaterThanOrEqual(5);
      expect(idle.filter((n) => n > 0)).toEqual([]);
      expect(await reply).toEqual({ ok: true, result: { accepted: true } });
    } finally {
      harness.proxy.delayMs = 0;
    }
    await harness.waitForTransfers(request.reference, 1);
  });

  test('a poison message is parked and answered with INTERNAL_ERROR instead of being retried forever', async () => {
    const request = await harness.open();
    const envelope = createEnvelope(simulateCryptoOutcome, {
      payment_id: request.payment_id,
      outcome: 'failed',
      amount_centavos: null,
    });
    const broken = { ...envelope, payload: { ...envelope.payload, outcome: 'refunded' } };
    await harness.client.publishEnvelope(broken as never, {});
    const parked = await harness.parkedCommands();
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('outcome') }),
    ]);
    expect((await harness.request(request.reference)).status).toBe('open');
  });

  test('after the watcher loses its broker connection it reconnects and serves commands again', async () => {
    const request = await harness.open();
    harness.service.broker.dropConnectionForTesting();
    const reply = await untilAnsweredOk(() =>
      harness.simulate(request.payment_id, 'failed', null, {
        timeoutMs: 1000,
        messageId: `retry-${request.payment_id}`,
      }),
    );
    expect(reply.ok).toBe(true);
    const closed = await harness.closed(request.payment_id);
    expect(closed.payload.reason).toBe('failed');
  });
});

describe('crypto.request.simulate.v1 with a confirmation grace configured', () => {
  const harness = WatcherHarness.forTheseTests({ env: { CONFIRMATION_GRACE_MS: '30000' } });

  test('expired: the window is moved past the grace too, so the next pass closes the request', async () => {
    const request = await harness.open();
    const reply = await harness.simulate(request.payment_id, 'expired');
    expect(reply.ok).toBe(true);
    // Well within the 30 s grace: the simulation does not wait it out.
    const closed = await harness.closed(request.payment_id, 5_000);
    expect(closed.payload).toMatchObject({ reason: 'expired', received_base_units: '0' });
  });
});
