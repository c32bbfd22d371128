import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { payTransferRequest, startLocalnet, type Localnet } from '../src';
import { rpc } from './support/rpc';

describe('local Solana JSON-RPC', () => {
  let localnet: Localnet;
  beforeEach(async () => {
    localnet = await startLocalnet({ port: 0 });
  });
  afterEach(() => localnet.close());

  it('serves seeded token balances the way web3.js reads them', async () => {
    const connection = new Connection(localnet.url, 'confirmed');
    const ata = getAssociatedTokenAddressSync(new PublicKey(localnet.mints.EURC), localnet.payer.publicKey);
    const balance = await connection.getTokenAccountBalance(ata);
    expect(balance.value).toMatchObject({ decimals: 6, uiAmountString: '1000000' });
    const owned = await connection.getTokenAccountsByOwner(localnet.payer.publicKey, {
      mint: new PublicKey(localnet.mints.EURC),
    });
    expect(owned.value.map((entry) => entry.pubkey.toBase58())).toEqual([ata.toBase58()]);
  });

  it('each landed transaction advances the slot and refreshes the blockhash', async () => {
    const connection = new Connection(localnet.url, 'confirmed');
    const before = await connection.getLatestBlockhash();
    const slot = await connection.getSlot();
    await payTransferRequest(localnet.url, localnet.payer, {
      recipient: localnet.receivingWallet,
      amountBaseUnits: 1n,
      mint: new PublicKey(localnet.mints.USDC),
      reference: Keypair.generate().publicKey,
    });
    expect(await connection.getSlot()).toBe(slot + 1);
    expect((await connection.getLatestBlockhash()).blockhash).not.toBe(before.blockhash);
  });

  it('answers a v0 transaction only to clients that declare maxSupportedTransactionVersion', async () => {
    const signature = await payTransferRequest(localnet.url, localnet.payer, {
      recipient: localnet.receivingWallet,
      amountBaseUnits: 5n,
      mint: new PublicKey(localnet.mints.USDC),
      reference: Keypair.generate().publicKey,
      version: 0,
    });
    expect((await rpc(localnet.url, 'getTransaction', [signature, { encoding: 'json' }])).error?.code).toBe(
      -32015,
    );
    const answer = await rpc(localnet.url, 'getTransaction', [
      signature,
      { maxSupportedTransactionVersion: 0 },
    ]);
    expect(answer.result).toMatchObject({ version: 0, meta: { err: null } });
  });

  it('getTransaction (json) shows what a real node shows: inner instructions indexing the whole key list, token balances with owner and program', async () => {
    // A wallet with no token account yet: the associated token program creates it by invoking the system and token
    // programs (inner instructions of the first top-level instruction).
    const recipient = Keypair.generate().publicKey;
    const signature = await payTransferRequest(localnet.url, localnet.payer, {
      recipient,
      amountBaseUnits: 7n,
      mint: new PublicKey(localnet.mints.USDC),
      reference: Keypair.generate().publicKey,
    });
    const { result } = await rpc(localnet.url, 'getTransaction', [
      signature,
      { encoding: 'json', maxSupportedTransactionVersion: 0 },
    ]);
    const answer = result as {
      version: string;
      transaction: { message: { accountKeys: string[]; instructions: { stackHeight: null }[] } };
      meta: {
        loadedAddresses: unknown;
        innerInstructions: { index: number; instructions: { accounts: number[]; stackHeight: number }[] }[];
        postTokenBalances: {
          accountIndex: number;
          owner: string;
          programId: string;
          uiTokenAmount: unknown;
        }[];
      };
    };
    expect(answer.version).toBe('legacy');
    expect(answer.meta.loadedAddresses).toEqual({ writable: [], readonly: [] });
    const keys = answer.transaction.message.accountKeys;
    expect(answer.transaction.message.instructions.every((ix) => ix.stackHeight === null)).toBe(true);
    const [created] = answer.meta.innerInstructions;
    expect(created?.index).toBe(0);
    expect(created?.instructions.length).toBeGreaterThan(0);
    for (const inner of created!.instructions) {
      expect(inner.stackHeight).toBe(2);
      expect(inner.accounts.every((index) => index >= 0 && index < keys.length)).toBe(true);
    }
    const destination = getAssociatedTokenAddressSync(new PublicKey(localnet.mints.USDC), recipient);
    expect(answer.meta.postTokenBalances).toContainEqual({
      accountIndex: keys.indexOf(destination.toBase58()),
      mint: localnet.mints.USDC,
      owner: recipient.toBase58(),
      programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      uiTokenAmount: { amount: '7', decimals: 6, uiAmount: 0.000007, uiAmountString: '0.000007' },
    });
  });

  it('a transaction held in a future version is refused with -32015 whatever version the client allows, until the mode is cleared', async () => {
    const signature = await payTransferRequest(localnet.url, localnet.payer, {
      recipient: localnet.receivingWallet,
      amountBaseUnits: 5n,
      mint: new PublicKey(localnet.mints.USDC),
      reference: Keypair.generate().publicKey,
    });
    localnet.setModes({ futureVersionSignatures: [signature] });
    const asked = () =>
      rpc(localnet.url, 'getTransaction', [signature, { maxSupportedTransactionVersion: 0 }]);
    expect((await asked()).error).toMatchObject({
      code: -32015,
      message: expect.stringContaining('version (1)'),
    });
    localnet.setModes({ futureVersionSignatures: [] });
    expect((await asked()).result).toMatchObject({ version: 'legacy' });
  });

  it('rejects a failing transaction at preflight without recording it', async () => {
    const reference = Keypair.generate().publicKey;
    const paying = payTransferRequest(localnet.url, localnet.payer, {
      recipient: localnet.receivingWallet,
      amountBaseUnits: 10n ** 18n,
      mint: new PublicKey(localnet.mints.USDC),
      reference,
    });
    await expect(paying).rejects.toThrow(/simulation failed/i);
    expect((await rpc(localnet.url, 'getSignaturesForAddress', [reference.toBase58()])).result).toEqual([]);
  });

  it('answers unknown methods and malformed bodies with JSON-RPC errors', async () => {
    expect((await rpc(localnet.url, 'getNothing', [])).error?.code).toBe(-32601);
    const response = await fetch(localnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});
