import { createCloseAccountInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction } from '@solana/web3.js';
import {
  FAILING_REFUND_REASON,
  cryptoRefundRequested,
  cryptoRefundSettled,
  cryptoRequestSettled,
  newPublicId,
  type Envelope,
  type RefundRequested,
  type RefundSettled,
} from '@gateway/contracts';
import { createEnvelope, type MessageContext } from '@gateway/messaging';
import { aRefundRequest, waitFor } from '@gateway/testkit';
import { payTransferRequest } from './support/localnet';
import { startVaultTransit, type VaultTransitStandIn } from './support/vault-transit';
import { WatcherHarness, type HarnessOptions } from './support/watcher';

interface RefundRow {
  refund_id: string;
  status: string;
  amount_base_units: string | null;
  recipients: Array<{ owner: string; amount_base_units: string }>;
  signature: string | null;
  failure_reason: string | null;
}

interface AttemptRow {
  signature: string;
  blockhash: string;
  compute_unit_price: number;
  signed_transaction: string;
}

/** Shared by the describes below: the harness of each, and what a stand-in payment service received. */
function refundsBench(options: HarnessOptions = {}) {
  const harness = WatcherHarness.forTheseTests(options);
  const settled: Array<Envelope<RefundSettled>> = [];

  beforeAll(async () => {
    // A queue under a service name the watcher does not use, standing in for the payment service.
    await harness.client
      .handlers('payment')
      .handle(cryptoRefundSettled, async (_payload: unknown, context: MessageContext) => {
        settled.push(context.envelope as Envelope<RefundSettled>);
      })
      .consume();
  });

  const settledOf = (refundId: string) =>
    settled.filter((event) => event.payload.refund_id === refundId).map((event) => event.payload);

  const request = (paymentId: string, amountCentavos: number, extra: Partial<RefundRequested> = {}) =>
    createEnvelope(
      cryptoRefundRequested,
      aRefundRequest(
        { payment_id: paymentId, amount_centavos: 10_000 },
        { amount_centavos: amountCentavos, ...extra },
      ),
    );

  /** The refund's settled event, once the stand-in payment service has it. */
  const settlement = (refundId: string, timeoutMs = 20_000): Promise<RefundSettled> =>
    waitFor(() => settledOf(refundId)[0], { timeoutMs, what: `the settlement of ${refundId}` });

  return {
    harness,
    settledOf,
    request,
    settlement,
    /** Asks for the refund and waits for its settled event. */
    async refund(envelope: Envelope<RefundRequested>, timeoutMs = 20_000): Promise<RefundSettled> {
      await harness.client.publishEnvelope(envelope, {});
      return settlement(envelope.payload.refund_id, timeoutMs);
    },
    async row(refundId: string): Promise<RefundRow | undefined> {
      const rows: RefundRow[] = await harness.service.dataSource.query(
        'SELECT * FROM crypto_refunds WHERE refund_id = $1',
        [refundId],
      );
      return rows[0];
    },
    /** Every transaction signed for the refund, oldest first. */
    attempts(refundId: string): Promise<AttemptRow[]> {
      return harness.service.dataSource.query(
        `SELECT signature, blockhash, compute_unit_price::int AS compute_unit_price, signed_transaction
           FROM crypto_refund_attempts WHERE refund_id = $1 ORDER BY signed_at, signature`,
        [refundId],
      );
    },
    async outboxed(refundId: string): Promise<number> {
      const rows: unknown[] = await harness.service.dataSource.query(
        `SELECT 1 FROM outbox WHERE name = $1 AND envelope->'payload'->>'refund_id' = $2`,
        [cryptoRefundSettled.name, refundId],
      );
      return rows.length;
    },
    status(signature: string) {
      return new Connection(harness.localnet.url, 'confirmed')
        .getSignatureStatuses([signature])
        .then(({ value }) => value[0]);
    },
  };
}

describe('crypto.refund.requested.v1: refunds carried out on the local chain', () => {
  const bench = refundsBench();
  const { harness } = bench;
  const payer = () => harness.localnet.payer.publicKey;

  test('a full refund returns every token received to the owner of the paying account, confirmed on chain', async () => {
    const paid = await harness.paidRequest();
    const before = await harness.tokenBalance(payer());
    const envelope = bench.request(paid.payment_id, 10_000);
    const settled = await bench.refund(envelope);
    expect(settled).toEqual({
      refund_id: envelope.payload.refund_id,
      payment_id: paid.payment_id,
      outcome: 'succeeded',
      external_id: expect.any(String),
      failure_reason: null,
    });
    expect(await harness.tokenBalance(payer())).toBe(before + BigInt(paid.amount_base_units));
    expect(await bench.status(settled.external_id!)).toMatchObject({
      err: null,
      confirmationStatus: 'finalized',
    });
    expect(await bench.row(envelope.payload.refund_id)).toMatchObject({
      status: 'succeeded',
      signature: settled.external_id,
      amount_base_units: paid.amount_base_units,
      recipients: [{ owner: payer().toBase58(), amount_base_units: paid.amount_base_units }],
    });
  });

  test('the database keeps the state machine: a settled refund is frozen, what a refund pays never changes', async () => {
    const paid = await harness.paidRequest();
    const done = bench.request(paid.payment_id, 5_000);
    await bench.refund(done);
    const query = (sql: string, id: string) => harness.service.dataSource.query(sql, [id]);
    await expect(
      query(`UPDATE crypto_refunds SET status = 'pending' WHERE refund_id = $1`, done.payload.refund_id),
    ).rejects.toMatchObject({ driverError: { code: '23514' } });
    await expect(
      query(`UPDATE crypto_refunds SET signature = 'x' WHERE refund_id = $1`, done.payload.refund_id),
    ).rejects.toMatchObject({ driverError: { code: '23514' } });
    const open = newPublicId('ref');
    await harness.service.dataSource.query(
      `INSERT INTO crypto_refunds (refund_id, payment_id, status, mint, decimals, amount_base_units, recipients)
       VALUES ($1, $2, 'pending', 'mint', 6, 10, '[{"owner":"o","amount_base_units":"10"}]')`,
      [open, paid.payment_id],
    );
    await expect(
      query(`UPDATE crypto_refunds SET amount_base_units = 11 WHERE refund_id = $1`, open),
    ).rejects.toMatchObject({ driverError: { code: '23514' } });
    await expect(
      query(`UPDATE crypto_refunds SET status = 'succeeded' WHERE refund_id = $1`, open),
    ).rejects.toMatchObject({ driverError: { code: '23514' } });
    await expect(
      query(
        `INSERT INTO crypto_refunds (refund_id, payment_id, status, mint, decimals, amount_base_units, recipients,
           signature, signed_transaction, last_valid_block_height)
         VALUES ($1, 'pay_x', 'succeeded', 'mint', 6, 10, '[{"owner":"o","amount_base_units":"10"}]', 's', 't', 1)`,
        newPublicId('ref'),
      ),
    ).rejects.toMatchObject({ driverError: { code: '23514' } });
  });

  test('a partial refund returns its share of the tokens received, rounded down to the base unit', async () => {
    const paid = await harness.paidRequest();
    const before = await harness.tokenBalance(payer());
    await bench.refund(bench.request(paid.payment_id, 3_333));
    const share = (BigInt(paid.amount_base_units) * 3_333n) / 10_000n;
    expect(await harness.tokenBalance(payer())).toBe(before + share);
  });

  test('two refunds of one payment each return their share, together never more than was received', async () => {
    const paid = await harness.paidRequest();
    const before = await harness.tokenBalance(payer());
    const first = await bench.refund(bench.request(paid.payment_id, 4_001));
    const second = await bench.refund(bench.request(paid.payment_id, 5_999));
    expect([first.outcome, second.outcome]).toEqual(['succeeded', 'succeeded']);
    expect(first.external_id).not.toBe(second.external_id);
    const received = BigInt(paid.amount_base_units);
    const returned = (received * 4_001n) / 10_000n + (received * 5_999n) / 10_000n;
    expect(await harness.tokenBalance(payer())).toBe(before + returned);
    expect(returned).toBeLessThanOrEqual(received);
  });

  /** A request paid with 250 000 base units more than its price, settled. */
  const overpaidRequest = async () => {
    const request = await harness.open();
    await harness.pay(request.reference, BigInt(request.amount_base_units) + 250_000n);
    await harness.waitForEvent(request.payment_id, cryptoRequestSettled.name);
    return { ...request, price: BigInt(request.amount_base_units) };
  };
  const excess = { funds_id: newPublicId('fund'), amount_centavos: null, amount_base_units: '250000' };

  test('an overpaid payment: a full refund returns the price, and the excess only when the payment service put it on the refund', async () => {
    const before = await harness.tokenBalance(payer());
    const priceOnly = await overpaidRequest();
    await bench.refund(bench.request(priceOnly.payment_id, 10_000));
    // The excess stays in the receiving wallet, held for a return by hand.
    expect(await harness.tokenBalance(payer())).toBe(before - 250_000n);

    const all = await overpaidRequest();
    const envelope = bench.request(all.payment_id, 10_000, { excess });
    // Delivered twice: carried out once.
    await harness.client.publishEnvelope(envelope, {});
    const settled = await bench.refund(envelope);
    expect(settled.outcome).toBe('succeeded');
    expect(await bench.row(envelope.payload.refund_id)).toMatchObject({
      amount_base_units: String(all.price + 250_000n),
    });
    // All the second payment's buyer sent came back: only the first payment's excess is still held.
    expect(await harness.tokenBalance(payer())).toBe(before - 250_000n);
    expect(await bench.outboxed(envelope.payload.refund_id)).toBe(1);
  });

  test('an excess larger than what arrived beyond the price fails the refund at once, with nothing sent', async () => {
    const paid = await harness.paidRequest();
    const envelope = bench.request(paid.payment_id, 10_000, { excess });
    expect(await bench.refund(envelope)).toMatchObject({
      outcome: 'failed',
      external_id: null,
      failure_reason: expect.stringContaining('excedente'),
    });
  });

  test('the database refuses refunds that would pay out more than the payment received', async () => {
    const paid = await harness.paidRequest();
    const insert = (amount: bigint) =>
      harness.service.dataSource.query(
        `INSERT INTO crypto_refunds (refund_id, payment_id, status, mint, decimals, amount_base_units, recipients)
         VALUES ($1, $2, 'pending', 'mint', 6, $3, '[{"owner":"o","amount_base_units":"1"}]')`,
        [newPublicId('ref'), paid.payment_id, amount.toString()],
      );
    const received = BigInt(paid.amount_base_units);
    await expect(insert(received + 1n)).rejects.toMatchObject({ driverError: { code: '23514' } });
    await insert(received - 1n);
    await expect(insert(2n)).rejects.toMatchObject({ driverError: { code: '23514' } });
    await insert(1n);
  });

  test('the refund goes to the wallet that paid, creating its token account when it has none any more', async () => {
    const request = await harness.open();
    const buyer = Keypair.generate();
    const usdc = new PublicKey(harness.localnet.mints.USDC);
    harness.localnet.seeder.fundSol(buyer.publicKey, LAMPORTS_PER_SOL);
    harness.localnet.seeder.mintTo(buyer.publicKey, usdc, BigInt(request.amount_base_units));
    await payTransferRequest(harness.localnet.url, buyer, {
      recipient: harness.localnet.receivingWallet,
      amountBaseUnits: BigInt(request.amount_base_units),
      mint: usdc,
      reference: new PublicKey(request.reference),
    });
    await harness.settled(request.payment_id);
    // The buyer's emptied token account is closed (its rent back to the buyer), as wallets do.
    const connection = new Connection(harness.localnet.url, 'confirmed');
    const ata = getAssociatedTokenAddressSync(usdc, buyer.publicKey);
    const closing = await connection.sendTransaction(
      new Transaction().add(createCloseAccountInstruction(ata, buyer.publicKey, buyer.publicKey)),
      [buyer],
    );
    await waitFor(async () => (await bench.status(closing))?.err === null, { what: 'the account closed' });
    expect(await connection.getAccountInfo(ata)).toBeNull();

    const settled = await bench.refund(bench.request(request.payment_id, 10_000));
    expect(settled.outcome).toBe('succeeded');
    expect(await harness.tokenBalance(buyer.publicKey)).toBe(BigInt(request.amount_base_units));
  });

  test(`a refund with reason ${FAILING_REFUND_REASON} is sent for real and fails on chain with the chain's error`, async () => {
    const paid = await harness.paidRequest();
    const before = await harness.tokenBalance(payer());
    const envelope = bench.request(paid.payment_id, 10_000, { reason: FAILING_REFUND_REASON });
    const settled = await bench.refund(envelope);
    expect(settled).toMatchObject({ outcome: 'failed', external_id: expect.any(String) });
    expect(settled.failure_reason).toContain('{"InstructionError":[5,{"Custom":17}]}');
    // It landed, failed, as the chain says.
    expect((await bench.status(settled.external_id!))?.err).toEqual({
      InstructionError: [5, { Custom: 17 }],
    });
    expect(await harness.tokenBalance(payer())).toBe(before);
    expect(await bench.row(envelope.payload.refund_id)).toMatchObject({ status: 'failed' });
  });

  test('a refund of a payment no transfer paid fails at once, with nothing sent', async () => {
    const request = await harness.open();
    const envelope = bench.request(request.payment_id, 10_000);
    const settled = await bench.refund(envelope);
    expect(settled).toMatchObject({
      outcome: 'failed',
      external_id: null,
      failure_reason: expect.any(String),
    });
    expect(await bench.row(envelope.payload.refund_id)).toMatchObject({ status: 'failed', signature: null });
  });

  test('delivered twice and sent again under another message, a refund pays once and is reported the same way each time it is told', async () => {
    const paid = await harness.paidRequest();
    const before = await harness.tokenBalance(payer());
    const envelope = bench.request(paid.payment_id, 10_000);
    await harness.client.publishEnvelope(envelope, {});
    await harness.client.publishEnvelope(envelope, {});
    await harness.client.publishEnvelope(createEnvelope(cryptoRefundRequested, envelope.payload), {});
    const settled = await bench.settlement(envelope.payload.refund_id);
    expect(settled.outcome).toBe('succeeded');
    expect(await harness.tokenBalance(payer())).toBe(before + BigInt(paid.amount_base_units));
    // A refund asked after the copies settles once they were taken off the queue (they are handled in order).
    const later = await harness.paidRequest();
    await bench.refund(bench.request(later.payment_id, 10_000));
    // A copy that finds it settled reports the outcome again (the payment service's resend after a lost report;
    // the payment service settles a refund once).
    expect(await bench.outboxed(envelope.payload.refund_id)).toBeGreaterThanOrEqual(1);
    expect(new Set(bench.settledOf(envelope.payload.refund_id).map((e) => JSON.stringify(e)))).toEqual(
      new Set([JSON.stringify(settled)]),
    );
    // The later payment was paid and refunded in full: only the first refund's tokens remain, once.
    expect(await harness.tokenBalance(payer())).toBe(before + BigInt(paid.amount_base_units));
  });

  test('a message that breaks the contract is parked at once, not retried', async () => {
    const paid = await harness.paidRequest();
    const envelope = bench.request(paid.payment_id, 10_000);
    const broken = { ...envelope, payload: { ...envelope.payload, amount_centavos: -5 } };
    await harness.client.publishEnvelope(broken as never, {});
    const parked = await harness.parkedEvents();
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('amount_centavos') }),
    ]);
    expect(await bench.row(envelope.payload.refund_id)).toBeUndefined();
  });

  test('after the watcher loses its broker connection it reconnects and carries refunds out again', async () => {
    const paid = await harness.paidRequest();
    harness.service.broker.dropConnectionForTesting();
    const settled = await bench.refund(bench.request(paid.payment_id, 10_000));
    expect(settled.outcome).toBe('succeeded');
  });
});

describe('crypto.refund.requested.v1 across restarts and a node dropping transactions', () => {
  const bench = refundsBench();
  const { harness } = bench;
  const payer = () => harness.localnet.payer.publicKey;
  afterEach(() => harness.localnet.setModes({ dropTransactions: false, confirmedLagMs: 0 }));

  const submitted = (refundId: string) =>
    waitFor(
      async () => {
        const row = await bench.row(refundId);
        return row?.status === 'submitted' ? row : undefined;
      },
      { what: `${refundId} signed and stored` },
    );

  /** A full refund of the payment, signed and stored while the node drops every transaction. */
  const heldBackRefund = async (paymentId: string) => {
    harness.localnet.setModes({ dropTransactions: true });
    const envelope = bench.request(paymentId, 10_000);
    await harness.client.publishEnvelope(envelope, {});
    return { envelope, stored: await submitted(envelope.payload.refund_id) };
  };

  test('stopped after storing its signed transactions and before any reached the chain, the next process sends the one on record: paid once', async () => {
    const paid = await harness.paidRequest();
    const before = await harness.tokenBalance(payer());
    const { envelope, stored } = await heldBackRefund(paid.payment_id);
    expect(await bench.status(stored.signature!)).toBeNull();
    // The process goes away with the transaction stored and not on chain; the message comes back to the next one.
    await harness.restart(async () => harness.localnet.setModes({ dropTransactions: false }));
    const settled = await bench.settlement(envelope.payload.refund_id);
    const attempts = await bench.attempts(envelope.payload.refund_id);
    expect(settled.outcome).toBe('succeeded');
    expect(attempts.map((attempt) => attempt.signature)).toContain(settled.external_id);
    expect(new Set(attempts.map((attempt) => attempt.blockhash))).toEqual(new Set([attempts[0]!.blockhash]));
    expect(await harness.tokenBalance(payer())).toBe(before + BigInt(paid.amount_base_units));
  });

  test('stopped after its transaction landed and before it was confirmed, the next process finds it and sends nothing new', async () => {
    const paid = await harness.paidRequest();
    const before = await harness.tokenBalance(payer());
    // Held back until signed and stored, then let through to land and stay unconfirmed (a lag set before would also
    // hide the payment the refund looks up).
    const { envelope, stored } = await heldBackRefund(paid.payment_id);
    harness.localnet.setModes({ dropTransactions: false, confirmedLagMs: 60_000 });
    // The one on record, or a higher-priced one signed meanwhile on the same blockhash.
    const landed = await waitFor(
      async () => {
        for (const attempt of await bench.attempts(stored.refund_id))
          if ((await bench.status(attempt.signature))?.confirmationStatus === 'processed')
            return attempt.signature;
        return undefined;
      },
      { what: 'the refund landed, not confirmed' },
    );
    await harness.restart(async () => harness.localnet.setModes({ confirmedLagMs: 0 }));
    const settled = await bench.settlement(envelope.payload.refund_id);
    expect(settled).toMatchObject({ outcome: 'succeeded', external_id: landed });
    expect(await harness.tokenBalance(payer())).toBe(before + BigInt(paid.amount_base_units));
  });

  test('under congestion a refund is signed again at higher prices on the same blockhash until one lands, and pays once', async () => {
    const paid = await harness.paidRequest();
    const before = await harness.tokenBalance(payer());
    const { envelope } = await heldBackRefund(paid.payment_id);
    // Leaders now take only transactions paying 50,000 µL per compute unit, and recent blocks show it.
    harness.localnet.setModes({ dropTransactions: false, congestionComputeUnitPrice: 50_000 });
    const settled = await bench.settlement(envelope.payload.refund_id, 30_000);
    harness.localnet.setModes({ congestionComputeUnitPrice: 0 });
    expect(settled.outcome).toBe('succeeded');
    const attempts = await bench.attempts(envelope.payload.refund_id);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(attempts.map((attempt) => attempt.blockhash)).size).toBe(1);
    const prices = attempts.map((attempt) => attempt.compute_unit_price);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(new Set(prices).size).toBe(prices.length);
    const landed = attempts.find((attempt) => attempt.signature === settled.external_id)!;
    expect(landed.compute_unit_price).toBeGreaterThanOrEqual(50_000);
    expect(landed.compute_unit_price).toBeLessThanOrEqual(harness.config.SOLANA_MAX_COMPUTE_UNIT_PRICE);
    const statuses = await Promise.all(attempts.map((attempt) => bench.status(attempt.signature)));
    expect(statuses.filter((status) => status !== null)).toHaveLength(1);
    expect(await harness.tokenBalance(payer())).toBe(before + BigInt(paid.amount_base_units));

    // An earlier attempt still reaching a leader before its blockhash expires fails on the refund's guard account.
    const earlier = attempts.find((attempt) => attempt.signature !== settled.external_id)!;
    const connection = new Connection(harness.localnet.url, 'confirmed');
    await connection.sendRawTransaction(Buffer.from(earlier.signed_transaction, 'base64'), {
      skipPreflight: true,
    });
    expect((await bench.status(earlier.signature))?.err).toEqual({ InstructionError: [2, { Custom: 0 }] });
    expect(await harness.tokenBalance(payer())).toBe(before + BigInt(paid.amount_base_units));
    // Attempts are kept as they were signed.
    const { dataSource } = harness.service;
    for (const change of [
      'DELETE FROM crypto_refund_attempts WHERE signature = $1',
      'UPDATE crypto_refund_attempts SET compute_unit_price = 0 WHERE signature = $1',
    ])
      await expect(dataSource.query(change, [earlier.signature])).rejects.toThrow(/kept as it was signed/);
  });

  test('a transaction dropped until its blockhash expired is signed again, once, and the refund pays once', async () => {
    const paid = await harness.paidRequest();
    const before = await harness.tokenBalance(payer());
    const { envelope, stored } = await heldBackRefund(paid.payment_id);
    // The cluster moves past the blockhash's validity: that transaction can no longer land anywhere.
    harness.localnet.ledger.skipSlots(151);
    harness.localnet.setModes({ dropTransactions: false });
    const settled = await bench.settlement(envelope.payload.refund_id, 30_000);
    expect(settled.outcome).toBe('succeeded');
    expect(settled.external_id).not.toBe(stored.signature);
    expect(await bench.status(stored.signature!)).toBeNull();
    expect(await harness.tokenBalance(payer())).toBe(before + BigInt(paid.amount_base_units));
  });
});

describe('crypto.refund.requested.v1 signed through Vault Transit (REFUND_SIGNER=vault-transit)', () => {
  const wallet = Keypair.generate();
  // Filled in before the harness starts (hooks run in order): the stand-in's address and token are known only then.
  const env: Record<string, string> = {};
  let vault: VaultTransitStandIn;
  beforeAll(async () => {
    vault = await startVaultTransit();
    vault.addKey('receiving-wallet', [wallet]);
    Object.assign(env, {
      REFUND_SIGNER: 'vault-transit',
      REFUND_SIGNER_SECRET_KEY: '',
      VAULT_ADDR: vault.url,
      VAULT_TOKEN: vault.token,
      VAULT_TRANSIT_KEY: 'receiving-wallet',
    });
  });
  afterAll(() => vault.close());
  const bench = refundsBench({ receivingWallet: wallet, env });
  const { harness } = bench;

  test('while Vault is unavailable the refund is tried again, never failed; once it answers the refund pays', async () => {
    const paid = await harness.paidRequest();
    vault.sealed = true;
    const envelope = bench.request(paid.payment_id, 10_000);
    await harness.client.publishEnvelope(envelope, {});
    const signRequests = () =>
      vault.requests.filter((request) => request.path.startsWith('transit/sign/')).length;
    // Asked, refused (503), and asked again on a later delivery.
    await waitFor(() => signRequests() >= 2, { timeoutMs: 20_000, what: 'a second signing attempt' });
    expect(bench.settledOf(envelope.payload.refund_id)).toEqual([]);
    expect(await bench.row(envelope.payload.refund_id)).toMatchObject({ status: 'pending', signature: null });
    vault.sealed = false;
    const settled = await bench.settlement(envelope.payload.refund_id, 30_000);
    expect(settled).toMatchObject({ outcome: 'succeeded', failure_reason: null });
    expect(await bench.status(settled.external_id!)).toMatchObject({ err: null });
  });
});
