import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import { startHttpProxy, type HttpProxy } from '@gateway/testkit';
import { SolanaRpc } from '../src/clients/solana-rpc';
import { type ScanCursor } from '../src/clients/signature-scanner';
import {
  TOKEN_PROGRAM_ID,
  findTransferInstructions,
  type TransferMatchCriteria,
} from '../src/domain/transfer-validation';
import { payTransferRequest, startLocalnet, type Localnet } from './support/localnet';
import { scanAll } from './support/scan';

const FAST_RETRY = {
  maxAttempts: 8,
  baseDelayMs: 10,
  maxDelayMs: 50,
  timeoutMs: 2_000,
  rateLimitedMaxMs: 5_000,
};

describe('signature scanner against the local chain', () => {
  let localnet: Localnet;
  let proxy: HttpProxy;

  beforeEach(async () => {
    localnet = await startLocalnet({ port: 0 });
    proxy = await startHttpProxy(localnet.url);
  });

  afterEach(async () => {
    await proxy.close();
    await localnet.close();
  });

  function receivingAccounts(): string[] {
    return [localnet.mints.USDC, localnet.mints.USDT].map((mint) =>
      getAssociatedTokenAddressSync(new PublicKey(mint), localnet.receivingWallet).toBase58(),
    );
  }

  function criteria(references: PublicKey[]): TransferMatchCriteria {
    return {
      receivingWallet: localnet.receivingWallet.toBase58(),
      acceptedMints: new Map([[localnet.mints.USDC, TOKEN_PROGRAM_ID]]),
      knownReferences: new Set(references.map((reference) => reference.toBase58())),
    };
  }

  async function pay(
    reference: PublicKey,
    amountBaseUnits: bigint,
    options: { mint?: string; version?: 'legacy' | 0; skipPreflight?: boolean } = {},
  ): Promise<string> {
    return payTransferRequest(localnet.url, localnet.payer, {
      recipient: localnet.receivingWallet,
      amountBaseUnits,
      mint: new PublicKey(options.mint ?? localnet.mints.USDC),
      reference,
      memo: 'pay_test',
      version: options.version,
      skipPreflight: options.skipPreflight,
    });
  }

  async function scanAndMatch(cursor: ScanCursor, references: PublicKey[], rpcUrl = localnet.url) {
    const result = await scanAll(new SolanaRpc(rpcUrl, FAST_RETRY), receivingAccounts(), cursor);
    const transfers = result.transactions.flatMap((scanned) =>
      findTransferInstructions(scanned.transaction, criteria(references)),
    );
    return { ...result, transfers };
  }

  it.each([['legacy' as const], [0 as const]])(
    'finds a %s payment and the exact amount for its reference',
    async (version) => {
      const reference = Keypair.generate().publicKey;
      const signature = await pay(reference, 12_345_678n, { version });
      const { transfers } = await scanAndMatch({}, [reference]);
      expect(transfers).toEqual([
        expect.objectContaining({
          kind: 'received',
          references: [reference.toBase58()],
          signature,
          amount: 12_345_678n,
          mint: localnet.mints.USDC,
        }),
      ]);
    },
  );

  it('when the receiving token account does not exist yet, the first payment creating it is found', async () => {
    await localnet.close();
    localnet = await startLocalnet({ port: 0, createReceivingTokenAccounts: false });
    const reference = Keypair.generate().publicKey;
    await pay(reference, 1_000_000n);
    const { transfers } = await scanAndMatch({}, [reference]);
    expect(transfers.map((transfer) => transfer.amount)).toEqual([1_000_000n]);
  });

  it('skips a failed transaction but moves the cursor past it', async () => {
    const reference = Keypair.generate().publicKey;
    const failed = await pay(reference, 10n ** 18n, { skipPreflight: true });
    const { transactions, transfers, cursor } = await scanAndMatch({}, [reference]);
    expect(transactions.map((scanned) => scanned.signature)).toContain(failed);
    expect(transfers).toEqual([]);
    expect(Object.values(cursor)).toContain(failed);
  });

  it('flags a payment in a mint that is not accepted as wrong_mint', async () => {
    const reference = Keypair.generate().publicKey;
    await pay(reference, 2_000_000n, { mint: localnet.mints.USDT });
    const { transfers } = await scanAndMatch({}, [reference]);
    expect(transfers).toEqual([
      expect.objectContaining({ kind: 'wrong_mint', mint: localnet.mints.USDT, amount: 2_000_000n }),
    ]);
  });

  it('returns two payments oldest first', async () => {
    const first = Keypair.generate().publicKey;
    const second = Keypair.generate().publicKey;
    await pay(first, 1_000_000n);
    await pay(second, 2_000_000n, { version: 0 });
    const { transfers } = await scanAndMatch({}, [first, second]);
    expect(transfers.map((transfer) => [transfer.references[0], transfer.amount])).toEqual([
      [first.toBase58(), 1_000_000n],
      [second.toBase58(), 2_000_000n],
    ]);
  });

  it('restarting from a saved cursor returns only newer payments and misses none, across pages', async () => {
    const before = Keypair.generate().publicKey;
    await pay(before, 1_000_000n);
    const first = await scanAndMatch({}, [before]);
    const saved = JSON.parse(JSON.stringify(first.cursor)) as ScanCursor;

    const later = [Keypair.generate().publicKey, Keypair.generate().publicKey, Keypair.generate().publicKey];
    for (const [index, reference] of later.entries()) await pay(reference, BigInt(index + 1) * 1_000n);
    const connection = new SolanaRpc(localnet.url, FAST_RETRY);
    const resumed = await scanAll(connection, receivingAccounts(), saved, { pageSize: 2 });
    const transfers = resumed.transactions.flatMap((scanned) =>
      findTransferInstructions(scanned.transaction, criteria([before, ...later])),
    );
    expect(transfers.map((transfer) => transfer.references[0])).toEqual(
      later.map((reference) => reference.toBase58()),
    );

    const again = await scanAll(connection, receivingAccounts(), resumed.cursor, { pageSize: 2 });
    expect(again.transactions).toEqual([]);
  });

  it('recovers when the RPC answers 429 and 500 for a while', async () => {
    const reference = Keypair.generate().publicKey;
    await pay(reference, 7_000_000n);
    proxy.failNext(2, 429, 0);
    proxy.failNext(2, 500);
    const { transfers } = await scanAndMatch({}, [reference], proxy.url);
    expect(proxy.failuresServed()).toBe(4);
    expect(transfers.map((transfer) => transfer.amount)).toEqual([7_000_000n]);
  });
});
