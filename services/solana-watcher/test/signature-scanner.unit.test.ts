import type { Connection } from '@solana/web3.js';
import { Keypair } from '@solana/web3.js';
import { scanAddresses } from '../src/chain/signature-scanner';

/** Just the two RPC calls the scanner makes, answering from a fixed chain history. */
function fakeConnection(
  history: Array<{ signature: string; slot: number; unsupported?: boolean }>,
): Connection {
  return {
    getSignaturesForAddress: async () => [...history].reverse().map(({ signature }) => ({ signature })),
    getTransaction: async (signature: string) => {
      const entry = history.find((h) => h.signature === signature)!;
      if (entry.unsupported) {
        throw Object.assign(new Error('Transaction version (1) is not supported by the requesting client'), {
          code: -32015,
        });
      }
      return { slot: entry.slot, transaction: {}, meta: {} };
    },
  } as unknown as Connection;
}

describe('scanAddresses', () => {
  test('a transaction in a version newer than v0 is passed over and reported, and the scan goes on past it', async () => {
    const address = Keypair.generate().publicKey.toBase58();
    const connection = fakeConnection([
      { signature: 'older', slot: 1 },
      { signature: 'future-version', slot: 2, unsupported: true },
      { signature: 'newer', slot: 3 },
    ]);
    const result = await scanAddresses(connection, [address], {});
    expect(result.transactions.map((t) => t.signature)).toEqual(['older', 'newer']);
    expect(result.unsupported).toEqual(['future-version']);
    expect(result.cursor[address]).toBe('newer');
  });

  test('any other RPC failure stops the scan, so the caller keeps its cursor and nothing is skipped', async () => {
    const address = Keypair.generate().publicKey.toBase58();
    const connection = {
      ...fakeConnection([{ signature: 'a', slot: 1 }]),
      getTransaction: async () => {
        throw Object.assign(new Error('node is behind'), { code: -32005 });
      },
    } as unknown as Connection;
    await expect(scanAddresses(connection, [address], {})).rejects.toThrow('node is behind');
  });
});
