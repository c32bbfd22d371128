import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { FAILING_MEMO, payTransferRequest, startLocalnet, type Localnet } from '../src';

describe('local chain sandbox rules', () => {
  let localnet: Localnet;
  let connection: Connection;
  beforeEach(async () => {
    localnet = await startLocalnet({ port: 0 });
    connection = new Connection(localnet.url, 'confirmed');
  });
  afterEach(() => localnet.close());

  const usdc = () => new PublicKey(localnet.mints.USDC);
  const balanceOf = async (owner: PublicKey) =>
    (await connection.getTokenAccountBalance(getAssociatedTokenAddressSync(usdc(), owner))).value.amount;
  const pay = (memo?: string) =>
    payTransferRequest(localnet.url, localnet.payer, {
      recipient: localnet.receivingWallet,
      amountBaseUnits: 1_000n,
      mint: usdc(),
      reference: Keypair.generate().publicKey,
      memo,
      skipPreflight: true,
    });

  /** A plain SOL transfer from the payer, signed with the latest blockhash. */
  async function signedTransfer(): Promise<{ wire: Buffer; blockhash: string }> {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const transaction = new Transaction({
      feePayer: localnet.payer.publicKey,
      blockhash,
      lastValidBlockHeight,
    }).add(
      SystemProgram.transfer({
        fromPubkey: localnet.payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000,
      }),
    );
    transaction.sign(localnet.payer);
    return { wire: transaction.serialize(), blockhash };
  }

  test('a transaction whose memo reads simulate:fail lands failed at its token transfer (AccountFrozen), moving nothing', async () => {
    const before = await balanceOf(localnet.receivingWallet);
    const lamportsBefore = await connection.getBalance(localnet.payer.publicKey);
    const signature = await pay(FAILING_MEMO);
    const { value } = await connection.getSignatureStatuses([signature]);
    // Instruction 2 is the TransferChecked (after the token account creation and the memo); 17 is AccountFrozen.
    expect(value[0]).toMatchObject({ err: { InstructionError: [2, { Custom: 17 }] } });
    expect(await balanceOf(localnet.receivingWallet)).toBe(before);
    expect(await connection.getBalance(localnet.payer.publicKey)).toBe(lamportsBefore - 5000);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.logMessages?.join('\n')).toContain('Account is frozen');
  });

  test('only that transaction fails: the accounts are usable again right after, and other memos pass', async () => {
    const before = BigInt(await balanceOf(localnet.receivingWallet));
    await pay(FAILING_MEMO);
    const signature = await pay('pedido 42');
    const { value } = await connection.getSignatureStatuses([signature]);
    expect(value[0]?.err).toBeNull();
    expect(BigInt(await balanceOf(localnet.receivingWallet))).toBe(before + 1_000n);
  });

  test('in dropping mode a sent transaction is answered but never lands; the same bytes land when sent again', async () => {
    const { wire } = await signedTransfer();
    localnet.setModes({ dropTransactions: true });
    const signature = await connection.sendRawTransaction(wire, { skipPreflight: true });
    expect((await connection.getSignatureStatuses([signature])).value[0]).toBeNull();
    localnet.setModes({ dropTransactions: false });
    expect(await connection.sendRawTransaction(wire, { skipPreflight: true })).toBe(signature);
    expect((await connection.getSignatureStatuses([signature])).value[0]?.err).toBeNull();
  });

  test('once slots pass the validity window, a transaction signed before can no longer land', async () => {
    const { wire, blockhash } = await signedTransfer();
    const { lastValidBlockHeight } = await connection.getLatestBlockhash();
    // Valid through its last valid block height, inclusive.
    localnet.ledger.skipSlots(150);
    expect(await connection.getBlockHeight()).toBe(lastValidBlockHeight);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(true);
    localnet.ledger.skipSlots(1);
    expect(await connection.getBlockHeight()).toBe(lastValidBlockHeight + 1);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(false);
    await expect(connection.sendRawTransaction(wire, { skipPreflight: true })).rejects.toThrow(
      /BlockhashNotFound/,
    );
  });
});
