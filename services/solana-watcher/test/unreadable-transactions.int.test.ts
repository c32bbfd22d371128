import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, PublicKey, Transaction } from '@solana/web3.js';
import { cryptoRequestClosed, cryptoRequestSettled } from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { waitFor } from '@gateway/testkit';
import { randomBytes } from 'node:crypto';
import { testLogger } from '@gateway/testkit';
import { recordUnreadableTransactions } from '../src/application/record-unreadable-transactions';
import type { ChainReader, UnreadableTransaction } from '../src/clients/signature-scanner';
import { SolanaRpc } from '../src/clients/solana-rpc';
import { encodeBase58 } from '../src/domain/base58';
import { UnappliedTransfers } from './support/unapplied-transfers';
import { WatcherHarness } from './support/watcher';

interface UnreadableRow {
  named_references: string[];
  attempts: number;
  read_at: Date | null;
  error: string;
}

describe('a transaction the watcher cannot read', () => {
  const harness = WatcherHarness.forTheseTests({ env: { UNREADABLE_RETRY_MS: '200' } });
  const unapplied = UnappliedTransfers.forTheseTests(harness);

  /**
   * Pays the request in full with a transaction the node then serves as a future transaction version (-32015): it is
   * signed first, so the node knows its signature before it lands.
   */
  async function payInAFutureVersion(reference: string, amount: bigint): Promise<string> {
    const { payer, receivingWallet, mints, url } = harness.localnet;
    const mint = new PublicKey(mints.USDC);
    const transfer = createTransferCheckedInstruction(
      getAssociatedTokenAddressSync(mint, payer.publicKey),
      mint,
      getAssociatedTokenAddressSync(mint, receivingWallet),
      payer.publicKey,
      amount,
      6,
    );
    transfer.keys.push({ pubkey: new PublicKey(reference), isSigner: false, isWritable: false });
    const connection = new Connection(url, 'confirmed');
    const transaction = new Transaction({
      feePayer: payer.publicKey,
      ...(await connection.getLatestBlockhash()),
    });
    transaction.add(transfer).sign(payer);
    const signature = encodeBase58(transaction.signature!);
    harness.localnet.setModes({ futureVersionSignatures: [signature] });
    await connection.sendRawTransaction(transaction.serialize());
    return signature;
  }

  const unreadableRow = async (signature: string): Promise<UnreadableRow | undefined> => {
    const rows: UnreadableRow[] = await harness.service.dataSource.query(
      'SELECT named_references, attempts, read_at, error FROM unreadable_transactions WHERE signature = $1',
      [signature],
    );
    return rows[0];
  };

  const unreadGauge = async (): Promise<number | undefined> =>
    (await metricsRegistry.getSingleMetric('solana_watcher_transactions_unread')?.get())?.values[0]?.value;

  test('is recorded against its reference as unreadable funds, read again, and then pays exactly once', async () => {
    const request = await harness.open();
    const signature = await payInAFutureVersion(request.reference, BigInt(request.amount_base_units));

    // Kept with the reference its listing shows, and reported to the payment service with no amount.
    const recorded = await waitFor(() => unreadableRow(signature), {
      what: 'the unreadable transaction recorded',
    });
    expect(recorded).toMatchObject({ named_references: [request.reference], read_at: null });
    expect(recorded.error).toContain('Transaction version (1) is not supported');
    expect(await unapplied.first(request.payment_id)).toEqual({
      payment_id: request.payment_id,
      reference: request.reference,
      signature,
      amount_base_units: null,
      mint: harness.localnet.mints.USDC,
      reason: 'unreadable',
      detected_at: expect.any(String),
    });
    // Read again and again while the node refuses it, counted as unread meanwhile; the request stays open.
    await waitFor(async () => ((await unreadableRow(signature))?.attempts ?? 0) >= 2, {
      what: 'a second attempt to read it',
    });
    expect(await unreadGauge()).toBeGreaterThanOrEqual(1);
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'open',
      received_base_units: '0',
    });

    // Once the node serves it, it is read and pays the request.
    harness.localnet.setModes({ futureVersionSignatures: [] });
    expect((await harness.settled(request.payment_id)).payload).toMatchObject({ signature });
    expect(await unreadableRow(signature)).toMatchObject({ read_at: expect.any(Date) });

    // Scanning the whole chain again records it no second time.
    await harness.rescanFromScratch();
    expect(await harness.transfers(request.reference)).toEqual([
      expect.objectContaining({ signature, applied_to: 'payment', amount: request.amount_base_units }),
    ]);
    expect(await harness.emitted(cryptoRequestSettled.name, request.payment_id)).toBe(1);
    // The payment service heard of it twice: unreadable, then read (its unreadable record goes).
    expect(unapplied.of(request.payment_id).map(({ reason, signature }) => ({ reason, signature }))).toEqual([
      { reason: 'unreadable', signature },
      { reason: 'read', signature },
    ]);
    await harness.nextFullScan();
    expect(await unreadGauge()).toBe(0);
  });

  test('once read as a partial payment, it counts towards the request and the payment is told it was read', async () => {
    const request = await harness.open();
    const half = BigInt(request.amount_base_units) / 2n;
    const signature = await payInAFutureVersion(request.reference, half);
    expect(await unapplied.first(request.payment_id)).toMatchObject({ signature, reason: 'unreadable' });

    harness.localnet.setModes({ futureVersionSignatures: [] });
    const read = await waitFor(
      () => unapplied.of(request.payment_id).find((event) => event.reason === 'read'),
      { what: 'the payment told the transaction was read' },
    );
    expect(read).toEqual({
      payment_id: request.payment_id,
      reference: request.reference,
      signature,
      amount_base_units: null,
      mint: harness.localnet.mints.USDC,
      reason: 'read',
      detected_at: expect.any(String),
    });
    // Its money is the request's partial amount (what the window's close reports), not money aside.
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'open',
      received_base_units: half.toString(),
    });
    expect(await harness.emitted(cryptoRequestSettled.name, request.payment_id)).toBe(0);
    expect(unapplied.of(request.payment_id)).toHaveLength(2);
  });

  test('a request it pays within the window stays open past the window until it is read, then is paid, not late', async () => {
    const request = await harness.open();
    const signature = await payInAFutureVersion(request.reference, BigInt(request.amount_base_units));
    await waitFor(() => unreadableRow(signature), { what: 'the unreadable transaction recorded' });
    // The window ends now, after the transaction landed; passes run past its end and the confirmation grace.
    const windowEnd = new Date();
    await harness.service.dataSource.query(
      'UPDATE payment_requests SET expires_at = $2 WHERE reference = $1',
      [request.reference, windowEnd],
    );
    await waitFor(() => Date.now() > windowEnd.getTime() + harness.config.CONFIRMATION_GRACE_MS, {
      what: 'the window and its grace to pass',
    });
    await harness.nextFullScan();
    expect(await harness.request(request.reference)).toMatchObject({ status: 'open' });
    expect(await harness.emitted(cryptoRequestClosed.name, request.payment_id)).toBe(0);

    harness.localnet.setModes({ futureVersionSignatures: [] });
    expect((await harness.settled(request.payment_id)).payload).toMatchObject({ signature });
    expect(await harness.transfers(request.reference)).toEqual([
      expect.objectContaining({ signature, applied_to: 'payment' }),
    ]);
    expect(await harness.emitted(cryptoRequestClosed.name, request.payment_id)).toBe(0);
  });

  test('an unread transaction that landed after the window does not hold the expiry back', async () => {
    const request = await harness.open();
    await harness.service.dataSource.query(
      'UPDATE payment_requests SET expires_at = $2 WHERE reference = $1',
      [request.reference, new Date(Date.now() - 60_000)],
    );
    // Recorded by hand against the reference, with a block time after the window: it cannot pay the request.
    await harness.service.dataSource.query(
      `INSERT INTO unreadable_transactions (signature, address, block_time, error, named_references, next_attempt_at)
       VALUES ($1, $2, now(), 'hand-made', $3, now() + interval '1 hour')`,
      [`late-${request.reference}`, request.reference, [request.reference]],
    );
    expect((await harness.closed(request.payment_id)).payload).toMatchObject({ reason: 'expired' });
    await harness.service.dataSource.query(
      'UPDATE unreadable_transactions SET read_at = now() WHERE address = $1',
      [request.reference],
    );
  });

  test('a replica that does not hold the scan lock reports no unread transactions', async () => {
    const signature = await payInAFutureVersion((await harness.open()).reference, 1n);
    await waitFor(async () => ((await unreadableRow(signature))?.attempts ?? 0) >= 1, {
      what: 'an attempt to read it again',
    });
    await waitFor(async () => ((await unreadGauge()) ?? 0) >= 1, { what: 'the unread gauge counting it' });
    // Another replica holds the scan: this one skips its passes and no longer reports what it last counted.
    const other = harness.service.dataSource.createQueryRunner();
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(hashtext('solana_watcher:scan'))`);
      await waitFor(async () => (await unreadGauge()) === 0, {
        what: 'the gauge of a replica without the lock',
      });
      await other.query(`SELECT pg_advisory_unlock(hashtext('solana_watcher:scan'))`);
    } finally {
      await other.release();
    }
    // Holding the lock again, it reports them at once.
    await waitFor(async () => ((await unreadGauge()) ?? 0) >= 1, {
      what: 'the gauge once it holds the lock',
    });
    harness.localnet.setModes({ futureVersionSignatures: [] });
    await waitFor(async () => (await unreadableRow(signature))?.read_at, { what: 'it read at last' });
  });

  test('which references it names is searched once: a rescan, or a pass after an RPC error, skips those recorded', async () => {
    await Promise.all([harness.open(), harness.open(), harness.open()]);
    const { mints, receivingWallet, url } = harness.localnet;
    const receivingAccount = getAssociatedTokenAddressSync(
      new PublicKey(mints.USDC),
      receivingWallet,
    ).toBase58();
    const listed = (signature: string): UnreadableTransaction => ({
      address: receivingAccount,
      signature,
      blockTime: Math.floor(Date.now() / 1000),
      error: 'Transaction version (1) is not supported',
    });
    const chain = new SolanaRpc(url);
    /** The node, counting the listings asked of it; `failing` answers every listing with an error. */
    const node = (failing = false) => {
      const counted = { listings: 0 };
      const connection = {
        getSignaturesForAddress: (...args: Parameters<SolanaRpc['getSignaturesForAddress']>) => {
          counted.listings += 1;
          return failing
            ? Promise.reject(new Error('429 Too Many Requests'))
            : chain.getSignaturesForAddress(...args);
        },
      } as unknown as ChainReader;
      return { connection, counted };
    };
    const record = (connection: ChainReader, signatures: string[]) =>
      recordUnreadableTransactions(
        connection,
        harness.service.dataSource,
        harness.service.unitOfWork('unreadable-test'),
        signatures.map(listed),
        60_000,
        testLogger(),
      );
    const [first, second] = [encodeBase58(randomBytes(64)), encodeBase58(randomBytes(64))];

    const searching = node();
    await record(searching.connection, [first]);
    expect(searching.counted.listings).toBeGreaterThanOrEqual(3);
    expect(await unreadableRow(first)).toMatchObject({ named_references: [], read_at: null });

    // The RPC fails while searching for the second: the first, recorded already, was not searched again.
    const refusing = node(true);
    await expect(record(refusing.connection, [first, second])).rejects.toThrow('429');
    expect(refusing.counted.listings).toBe(1);
    expect(await unreadableRow(second)).toBeUndefined();

    // The next pass searches only for the second; a rescan after it searches nothing.
    const retrying = node();
    await record(retrying.connection, [first, second]);
    expect(await unreadableRow(second)).toMatchObject({ read_at: null });
    const rescanning = node();
    await record(rescanning.connection, [first, second]);
    expect(rescanning.counted.listings).toBe(0);
    await harness.service.dataSource.query(
      'UPDATE unreadable_transactions SET read_at = now() WHERE signature = ANY($1)',
      [[first, second]],
    );
  });
});
