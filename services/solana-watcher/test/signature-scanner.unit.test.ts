import { Keypair } from '@solana/web3.js';
import { scanAddresses, type ChainReader, type ScanPage } from '../src/clients/signature-scanner';
import { RpcError, UnexpectedAnswer } from '../src/clients/solana-rpc';
import { scanAll } from './support/scan';

/** Just the two RPC calls the scanner makes, answering from a fixed chain history. */
interface Entry {
  signature: string;
  slot: number;
  /** How getTransaction fails to give a readable answer: a version refused, a shape the client cannot read, no meta. */
  unreadable?: 'future-version' | 'unparseable' | 'no-meta';
  confirmationStatus?: 'confirmed' | 'finalized';
  /** getTransaction answers null (a pool node behind the one that listed it). */
  notServed?: boolean;
}

function fakeConnection(history: Entry[]): ChainReader {
  return {
    getSignaturesForAddress: async (_address: unknown, options?: { until?: string }) =>
      history
        .slice(history.findIndex((entry) => entry.signature === options?.until) + 1)
        .reverse()
        .map(({ signature, slot, confirmationStatus }) => ({
          signature,
          slot,
          blockTime: 1_700_000_000 + slot,
          confirmationStatus: confirmationStatus ?? 'finalized',
        })),
    getTransaction: async (signature: string) => {
      const entry = history.find((h) => h.signature === signature)!;
      if (entry.notServed) return null;
      if (entry.unreadable === 'future-version')
        throw new RpcError(
          'getTransaction',
          -32015,
          'Transaction version (1) is not supported by the requesting client',
        );
      if (entry.unreadable === 'unparseable')
        throw new UnexpectedAnswer('getTransaction', 'transaction.message.accountKeys');
      return { slot: entry.slot, transaction: {}, meta: entry.unreadable === 'no-meta' ? null : {} };
    },
  } as unknown as ChainReader;
}

describe('scanAddresses', () => {
  test('a transaction it cannot read is handed over as unreadable, with why, and the scan goes on past it', async () => {
    const address = Keypair.generate().publicKey.toBase58();
    const connection = fakeConnection([
      { signature: 'older', slot: 1 },
      { signature: 'future', slot: 2, unreadable: 'future-version' },
      { signature: 'odd-shape', slot: 3, unreadable: 'unparseable' },
      { signature: 'no-meta', slot: 4, unreadable: 'no-meta' },
      { signature: 'newer', slot: 5 },
    ]);
    const result = await scanAll(connection, [address], {});
    expect(result.transactions.map((t) => t.signature)).toEqual(['older', 'newer']);
    expect(result.unreadable).toEqual([
      {
        address,
        signature: 'future',
        blockTime: 1_700_000_002,
        error: expect.stringContaining('version (1)'),
      },
      {
        address,
        signature: 'odd-shape',
        blockTime: 1_700_000_003,
        error: expect.stringContaining('transaction.message.accountKeys'),
      },
      { address, signature: 'no-meta', blockTime: 1_700_000_004, error: expect.stringContaining('metadata') },
    ]);
    expect(result.cursor[address]).toBe('newer');
  });

  test('any other RPC failure stops the scan, so the caller keeps its cursor and nothing is skipped', async () => {
    const address = Keypair.generate().publicKey.toBase58();
    const connection = {
      ...fakeConnection([{ signature: 'a', slot: 1 }]),
      getTransaction: async () => {
        throw new RpcError('getTransaction', -32005, 'node is behind');
      },
    } as unknown as ChainReader;
    await expect(scanAll(connection, [address], {})).rejects.toThrow('node is behind');
  });

  test('a transaction not finalized yet, or not served yet, stops its account before it; what came before is handed over', async () => {
    const address = Keypair.generate().publicKey.toBase58();
    const history: Entry[] = [
      { signature: 'final', slot: 1 },
      { signature: 'confirmed-only', slot: 2, confirmationStatus: 'confirmed' },
      { signature: 'after', slot: 3 },
    ];
    const held = await scanAll(fakeConnection(history), [address], {});
    expect(held.transactions.map((t) => t.signature)).toEqual(['final']);
    expect(held).toMatchObject({ heldBack: 2, heldBackSince: 1_700_000_002, cursor: { [address]: 'final' } });

    // Its slot at or below the finalized slot read before the scan counts as finalized too.
    const finalizedBySlot = await scanAll(fakeConnection(history), [address], {}, { finalizedSlot: 3 });
    expect(finalizedBySlot.transactions.map((t) => t.signature)).toEqual([
      'final',
      'confirmed-only',
      'after',
    ]);

    history[1] = { signature: 'confirmed-only', slot: 2, notServed: true };
    const notServed = await scanAll(fakeConnection(history), [address], { [address]: 'final' });
    expect(notServed).toMatchObject({ transactions: [], heldBack: 2, cursor: { [address]: 'final' } });
  });

  test('a failure mid-scan hands over, with the cursor, what was read before it, page by page', async () => {
    const address = Keypair.generate().publicKey.toBase58();
    const history = Array.from({ length: 7 }, (_, index) => ({ signature: `s${index}`, slot: index }));
    const connection = fakeConnection(history);
    const read = connection.getTransaction.bind(connection);
    connection.getTransaction = (async (signature: string, config: never) => {
      if (signature === 's5') throw new Error('node is behind');
      return read(signature, config);
    }) as typeof connection.getTransaction;
    const pages: ScanPage[] = [];
    const scanning = scanAddresses(
      connection,
      [address],
      {},
      async (page) => {
        pages.push(page);
      },
      { pageTransactions: 2 },
    );
    await expect(scanning).rejects.toThrow('node is behind');
    expect(pages.map((page) => page.transactions.map((t) => t.signature))).toEqual([
      ['s0', 's1'],
      ['s2', 's3'],
      ['s4'],
    ]);
    expect(pages.at(-1)!.cursor).toEqual({ [address]: 's4' });
  });
});
