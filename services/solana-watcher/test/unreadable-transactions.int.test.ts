import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, PublicKey, Transaction } from '@solana/web3.js';
import { cryptoRequestSettled } from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { waitFor } from '@gateway/testkit';
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
});
