import {
  createAssociatedTokenAccountInstruction,
  createInitializeMintInstruction,
  createInitializeTransferFeeConfigInstruction,
  createMintToInstruction,
  createTransferCheckedInstruction,
  createTransferCheckedWithFeeInstruction,
  ExtensionType,
  getAssociatedTokenAddressSync,
  getMintLen,
  TOKEN_2022_PROGRAM_ID,
} from '@solana/spl-token';
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import { waitFor } from '@gateway/testkit';
import { type HarnessOptions, WatcherHarness, withToken2022Eurc } from './support/watcher';

describe('a stablecoin whose mint is a Token-2022 mint', () => {
  const mint = Keypair.generate().publicKey;
  const harness = WatcherHarness.forTheseTests(withToken2022Eurc(mint));

  test('is watched on the receiving token account Token-2022 derives, and pays the request', async () => {
    const request = await harness.open({ token: 'eurc' });
    const signature = await harness.pay(
      request.reference,
      BigInt(request.amount_base_units),
      mint.toBase58(),
    );
    const settled = await harness.settled(request.payment_id);
    expect(settled.payload).toMatchObject({ signature, reference: request.reference });
    expect(await harness.transfers(request.reference)).toEqual([
      expect.objectContaining({ mint: mint.toBase58(), applied_to: 'payment' }),
    ]);
  });
});

/** EURC made a Token-2022 mint withholding a 1 % transfer fee, created on the local chain by real transactions. */
function withFeeBearingEurc(mint: Keypair): HarnessOptions {
  return {
    env: { MINT_EURC: mint.publicKey.toBase58() },
    seed: (localnet) => {
      const { payer, mintAuthority, receivingWallet, ledger } = localnet;
      const space = getMintLen([ExtensionType.TransferFeeConfig]);
      const accountFor = (owner: PublicKey) =>
        getAssociatedTokenAddressSync(mint.publicKey, owner, false, TOKEN_2022_PROGRAM_ID);
      const transaction = new Transaction({ feePayer: payer.publicKey, ...ledger.latestBlockhash() }).add(
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: mint.publicKey,
          space,
          lamports: ledger.minimumBalanceForRentExemption(space),
          programId: TOKEN_2022_PROGRAM_ID,
        }),
        createInitializeTransferFeeConfigInstruction(
          mint.publicKey,
          mintAuthority.publicKey,
          mintAuthority.publicKey,
          FEE_BASIS_POINTS,
          10n ** 12n,
          TOKEN_2022_PROGRAM_ID,
        ),
        createInitializeMintInstruction(
          mint.publicKey,
          6,
          mintAuthority.publicKey,
          null,
          TOKEN_2022_PROGRAM_ID,
        ),
        ...[payer.publicKey, receivingWallet].map((owner) =>
          createAssociatedTokenAccountInstruction(
            payer.publicKey,
            accountFor(owner),
            owner,
            mint.publicKey,
            TOKEN_2022_PROGRAM_ID,
          ),
        ),
        createMintToInstruction(
          mint.publicKey,
          accountFor(payer.publicKey),
          mintAuthority.publicKey,
          10n ** 12n,
          [],
          TOKEN_2022_PROGRAM_ID,
        ),
      );
      transaction.sign(payer, mint, mintAuthority);
      const landed = ledger.send(transaction.serialize());
      if (landed.err) throw new Error(`fee-bearing mint not created: ${JSON.stringify(landed.err)}`);
    },
  };
}

const FEE_BASIS_POINTS = 100;
/** The fee the mint withholds from a transfer of `amount` (rounded up, as the program computes it). */
const feeOn = (amount: bigint) => (amount * BigInt(FEE_BASIS_POINTS) + 9_999n) / 10_000n;

describe('a stablecoin whose Token-2022 mint withholds a transfer fee', () => {
  const mint = Keypair.generate();
  const harness = WatcherHarness.forTheseTests(withFeeBearingEurc(mint));

  /** Sends `instruction` (naming the reference) from the localnet's payer; resolves with its signature once landed. */
  function send(instruction: TransactionInstruction, reference: string): Promise<string> {
    instruction.keys.push({ pubkey: new PublicKey(reference), isSigner: false, isWritable: false });
    const connection = new Connection(harness.localnet.url, 'confirmed');
    return connection.sendTransaction(new Transaction().add(instruction), [harness.localnet.payer]);
  }
  const accountOf = (owner: PublicKey) =>
    getAssociatedTokenAddressSync(mint.publicKey, owner, false, TOKEN_2022_PROGRAM_ID);

  test('a plain TransferChecked of the price is credited only what arrived, so it does not pay the request', async () => {
    const request = await harness.open({ token: 'eurc' });
    const price = BigInt(request.amount_base_units);
    const { payer, receivingWallet } = harness.localnet;
    const signature = await send(
      createTransferCheckedInstruction(
        accountOf(payer.publicKey),
        mint.publicKey,
        accountOf(receivingWallet),
        payer.publicKey,
        price,
        6,
        [],
        TOKEN_2022_PROGRAM_ID,
      ),
      request.reference,
    );
    const arrived = (price - feeOn(price)).toString();
    await waitFor(async () => (await harness.transfers(request.reference)).length > 0, {
      what: 'the transfer recorded',
    });
    expect(await harness.transfers(request.reference)).toEqual([
      expect.objectContaining({ signature, amount: arrived, applied_to: 'payment' }),
    ]);
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'open',
      received_base_units: arrived,
    });
  });

  test('a TransferCheckedWithFee whose amount less its fee is the price pays the request', async () => {
    const request = await harness.open({ token: 'eurc' });
    const price = BigInt(request.amount_base_units);
    let gross = price;
    while (gross - feeOn(gross) < price) gross += 1n;
    const { payer, receivingWallet } = harness.localnet;
    const signature = await send(
      createTransferCheckedWithFeeInstruction(
        accountOf(payer.publicKey),
        mint.publicKey,
        accountOf(receivingWallet),
        payer.publicKey,
        gross,
        6,
        feeOn(gross),
        [],
        TOKEN_2022_PROGRAM_ID,
      ),
      request.reference,
    );
    const settled = await harness.settled(request.payment_id);
    expect(settled.payload).toMatchObject({
      signature,
      received_base_units: price.toString(),
      excess_base_units: '0',
    });
    expect(await harness.transfers(request.reference)).toEqual([
      expect.objectContaining({ signature, amount: price.toString(), applied_to: 'payment' }),
    ]);
  });
});
