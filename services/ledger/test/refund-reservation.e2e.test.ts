import { DataSource } from 'typeorm';
import { createReservation, getBalance, newPublicId, type Balance } from '@gateway/contracts';
import type { Broker } from '@gateway/messaging';
import {
  connectTestClient,
  stackClient,
  startStack,
  waitFor,
  type RunningStack,
  type StackClient,
} from '@gateway/testkit';

/**
 * A refund against the books, through the whole stack as `npm start` runs it: refused with INSUFFICIENT_BALANCE
 * before anything reaches the PSP or the chain when the business's available + pending does not cover it, opened
 * right after its payment was paid even while the ledger has not posted the payment, and never reserving more than the
 * business holds when refunds of several of its payments race.
 */
describe('refunds against the balance, end to end', () => {
  let stack: RunningStack;
  let client: StackClient;
  let broker: Broker;
  let db: DataSource;

  beforeAll(async () => {
    // The race below sends many requests from one key; the ledger asks about unconfirmed reservations after 1 s.
    stack = await startStack({
      RATE_LIMIT_PER_MINUTE: '100000',
      RESERVATION_CONFIRM_AFTER_SECONDS: '1',
      RESERVATION_SWEEP_INTERVAL_MS: '200',
    });
    client = stackClient(stack);
    broker = await connectTestClient(stack.env.config, 'refund-reservation-e2e');
    db = await new DataSource({
      type: 'postgres',
      url: stack.env.config.DATABASE_URL,
      extra: { max: 2 },
    }).initialize();
  }, 150_000);

  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await db?.destroy();
    await broker?.close();
    await stack?.stop();
  });

  /** A business whose fee is 1 % on both rails. */
  const newBusiness = (name: string) =>
    client.createBusiness(name, {
      pix: { percent_bps: 100, fixed_centavos: 0 },
      crypto: { percent_bps: 100, fixed_centavos: 0 },
    });

  const balanceOf = async (businessId: string): Promise<Balance> => {
    const reply = await broker.request(getBalance, { business_id: businessId }, { timeoutMs: 5000 });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };

  const balanceBecomes = (businessId: string, expected: Partial<Balance>, what: string) =>
    waitFor(
      async () => {
        const read = await balanceOf(businessId);
        return Object.entries(expected).every(([key, value]) => read[key as keyof Balance] === value)
          ? read
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what },
    );

  /** A payment paid by the sandbox's payer; answers once the payment service shows it paid. */
  const paid = async (apiKey: string, body: Record<string, unknown>): Promise<string> => {
    const paymentId = (await client.createPayment(apiKey, body)).payment_id as string;
    await client.payInSandbox(apiKey, paymentId);
    await client.paymentIn(apiKey, paymentId, 'paid', 60_000);
    return paymentId;
  };

  /** How many refunds ever reached the PSP (devoluções) and the chain (token transfers back). */
  const sentToRails = async (): Promise<number> => {
    const [row] = (await db.query(
      `SELECT (SELECT count(*) FROM psp_simulator.devolucoes) + (SELECT count(*) FROM solana_watcher.crypto_refunds)
         AS n`,
    )) as Array<{ n: string }>;
    return Number(row!.n);
  };

  const refund = (apiKey: string, paymentId: string, body: Record<string, unknown>) =>
    client.api(apiKey, 'POST', `/v1/payments/${paymentId}/refunds`, body);

  test('a refund over available + pending is 422 INSUFFICIENT_BALANCE and nothing is sent to the PSP or the chain', async () => {
    const { apiKey, businessId } = await newBusiness('Mercearia Saldo Curto');
    const pix = await paid(apiKey, { payment_method: 'pix', amount: 10_000 });
    const crypto = await paid(apiKey, {
      payment_method: 'crypto',
      amount: 5_000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    // Nets 9 900 + 4 950; the fees (100 + 50) are not returned.
    await balanceBecomes(
      businessId,
      { available_centavos: 14_850, pending_centavos: 0 },
      'both payments posted',
    );
    const before = await sentToRails();

    // The PIX payment's full refund fits (10 000 of 14 850) and goes to the PSP.
    const first = await refund(apiKey, pix, { amount: 10_000 });
    expect(first).toMatchObject({ status: 201, body: { amount_brl: 100, status: 'pending' } });
    await waitFor(async () => (await sentToRails()) === before + 1 || undefined, { what: 'the devolução' });
    await balanceBecomes(
      businessId,
      { available_centavos: 4_850, reserved_centavos: 0 },
      'the PIX refund posted from its reservation',
    );

    // The crypto payment's full refund (5 000) is more than is left (4 850): the fee is not returned.
    for (const body of [{}, { amount: 4_851 }]) {
      const over = await refund(apiKey, crypto, body);
      expect(over).toMatchObject({ status: 422, body: { error: { code: 'INSUFFICIENT_BALANCE' } } });
    }
    expect((await client.api(apiKey, 'GET', `/v1/payments/${crypto}/refunds`)).body.data).toEqual([]);
    expect(await sentToRails()).toBe(before + 1);
    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 4_850,
      pending_centavos: 0,
      reserved_centavos: 0,
    });

    // What is left fits exactly, and goes back on chain.
    const fits = await refund(apiKey, crypto, { amount: 4_850 });
    expect(fits).toMatchObject({ status: 201, body: { amount_brl: 48.5 } });
    await waitFor(async () => (await sentToRails()) === before + 2 || undefined, {
      what: 'the transfer back',
    });
    await balanceBecomes(
      businessId,
      { available_centavos: 0, pending_centavos: 0, reserved_centavos: 0 },
      'both refunds posted',
    );
  }, 180_000);

  test('a refund asked for right after payment succeeds, even while the ledger has not posted the payment yet', async () => {
    const { apiKey, businessId } = await newBusiness('Livraria Pressa');
    // Funds posted before, so the refund below is covered once the new payment is posted too.
    await paid(apiKey, { payment_method: 'pix', amount: 1_000 });
    await balanceBecomes(businessId, { available_centavos: 990 }, 'the first payment posted');

    const ledger = stack.pidOf('ledger');
    process.kill(ledger, 'SIGSTOP');
    let refundAnswer;
    try {
      const paymentId = await paid(apiKey, { payment_method: 'pix', amount: 5_000 });
      // The ledger is frozen: it has not posted the payment. It wakes while the refund waits for it.
      const asked = refund(apiKey, paymentId, { amount: 5_000 });
      setTimeout(() => process.kill(ledger, 'SIGCONT'), 700);
      refundAnswer = await asked;
    } finally {
      process.kill(ledger, 'SIGCONT');
    }
    expect(refundAnswer).toMatchObject({ status: 201, body: { amount_brl: 50, status: 'pending' } });
    // Once it wakes, the ledger may take the reservation before or after it posts the payment (two queues): either way
    // the refund is opened, never refused for a payment not posted yet. The wait itself is proven, deterministically,
    // by the payment service's own test of a ledger answering payment_not_posted.
    await balanceBecomes(
      businessId,
      { available_centavos: 990 + 4_950 - 5_000, reserved_centavos: 0 },
      'the refund posted',
    );

    // Without the freeze, in a loop: a refund right after paid is never refused for a payment not posted yet.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const paymentId = await paid(apiKey, { payment_method: 'pix', amount: 2_000 });
      const answer = await refund(apiKey, paymentId, { amount: 1_500 });
      expect(answer).toMatchObject({ status: 201 });
    }
  }, 180_000);

  test('concurrent refunds of different payments of one business never reserve more than available + pending (many tries)', async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const { apiKey, businessId } = await newBusiness(`Loja Corrida ${attempt}`);
      const payments: string[] = [];
      for (let i = 0; i < 4; i += 1)
        payments.push(await paid(apiKey, { payment_method: 'pix', amount: 10_000 }));
      await balanceBecomes(businessId, { available_centavos: 39_600 }, 'four payments posted');
      // Eight refunds of R$ 50 (two per payment) race for R$ 396: seven fit, the eighth never does.
      const answers = await Promise.all(
        payments.flatMap((paymentId) => [
          refund(apiKey, paymentId, { amount: 5_000 }),
          refund(apiKey, paymentId, { amount: 5_000 }),
        ]),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 201, 422]);
      expect(answers.find((answer) => answer.status === 422)?.body).toMatchObject({
        error: { code: 'INSUFFICIENT_BALANCE' },
      });
      const reserved = await balanceOf(businessId);
      expect(reserved.available_centavos + reserved.pending_centavos).toBeGreaterThanOrEqual(0);
      await balanceBecomes(
        businessId,
        { available_centavos: 39_600 - 35_000, pending_centavos: 0, reserved_centavos: 0 },
        'the seven refunds posted',
      );
    }
  }, 600_000);

  test('a reservation whose refund was never opened is released by the sweep after asking the payment service; a real refund still posts', async () => {
    const { apiKey, businessId } = await newBusiness('Papelaria Interrompida');
    const paymentId = await paid(apiKey, { payment_method: 'pix', amount: 10_000 });
    await balanceBecomes(businessId, { available_centavos: 9_900 }, 'the payment posted');
    // What a payment service that stopped between the reservation and the refund's commit leaves behind.
    const orphan = newPublicId('ref');
    const reserved = await broker.request(
      createReservation,
      { reservation_id: orphan, business_id: businessId, payment_id: paymentId, amount_centavos: 4_000 },
      { timeoutMs: 5000 },
    );
    expect(reserved).toEqual({ ok: true, result: { reservation_id: orphan, outcome: 'reserved' } });
    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 5_900,
      reserved_centavos: 4_000,
    });

    // The sweep asks the payment service, which has no such refund: the money is spendable again.
    await balanceBecomes(
      businessId,
      { available_centavos: 9_900, reserved_centavos: 0 },
      'the orphan reservation released',
    );
    const [row] = (await db.query(`SELECT status FROM ledger.reservations WHERE id = $1`, [
      orphan,
    ])) as Array<{
      status: string;
    }>;
    expect(row).toEqual({ status: 'released' });
    // A real refund of the same payment, asked about too if its outcome is slow, is never released: it posts.
    const opened = await refund(apiKey, paymentId, { amount: 1_000 });
    expect(opened.status).toBe(201);
    await balanceBecomes(
      businessId,
      { available_centavos: 8_900, reserved_centavos: 0 },
      'the real refund posted',
    );
  }, 180_000);
});
