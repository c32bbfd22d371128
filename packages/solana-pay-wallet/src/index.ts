import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  getMint,
} from '@solana/spl-token';
import {
  Connection,
  PublicKey,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type Keypair,
} from '@solana/web3.js';

export interface TransferRequestPayment {
  recipient: PublicKey;
  amountBaseUnits: bigint;
  mint: PublicKey;
  reference: PublicKey;
  memo?: string;
  /** Wallets send legacy or v0 transactions; the watcher must understand both. */
  version?: 'legacy' | 0;
  /** Lands the transaction even when it fails (as a wallet skipping preflight does), so it is recorded with `err`. */
  skipPreflight?: boolean;
}

/**
 * Pays a Solana Pay SPL transfer request the way a wallet does: create the recipient's associated token account
 * idempotently, an optional memo right before the transfer, and a TransferChecked last, carrying the reference as a
 * read-only non-signer key. Resolves with the signature once the transaction has landed.
 */
export async function payTransferRequest(
  rpcUrl: string,
  payer: Keypair,
  payment: TransferRequestPayment,
): Promise<string> {
  const connection = new Connection(rpcUrl, 'confirmed');
  const mintAccount = await connection.getAccountInfo(payment.mint);
  if (!mintAccount) throw new Error(`mint ${payment.mint.toBase58()} not found`);
  const tokenProgramId = mintAccount.owner;
  const { decimals } = await getMint(connection, payment.mint, 'confirmed', tokenProgramId);
  const source = getAssociatedTokenAddressSync(payment.mint, payer.publicKey, false, tokenProgramId);
  const destination = getAssociatedTokenAddressSync(payment.mint, payment.recipient, false, tokenProgramId);

  const transfer = createTransferCheckedInstruction(
    source,
    payment.mint,
    destination,
    payer.publicKey,
    payment.amountBaseUnits,
    decimals,
    [],
    tokenProgramId,
  );
  transfer.keys.push({ pubkey: payment.reference, isSigner: false, isWritable: false });
  const instructions = [
    createAssociatedTokenAccountIdempotentInstruction(
      payer.publicKey,
      destination,
      payment.recipient,
      payment.mint,
      tokenProgramId,
    ),
    ...(payment.memo ? [memoInstruction(payment.memo)] : []),
    transfer,
  ];

  const options = { skipPreflight: payment.skipPreflight ?? false };
  const signature =
    payment.version === 0
      ? await sendV0(connection, payer, instructions, options)
      : await connection.sendTransaction(new Transaction().add(...instructions), [payer], options);
  await waitUntilLanded(connection, signature);
  return signature;
}

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

function memoInstruction(memo: string): TransactionInstruction {
  return new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [],
    data: Buffer.from(memo, 'utf8'),
  });
}

async function sendV0(
  connection: Connection,
  payer: Keypair,
  instructions: TransactionInstruction[],
  options: { skipPreflight: boolean },
): Promise<string> {
  const { blockhash } = await connection.getLatestBlockhash();
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions,
  }).compileToV0Message();
  const transaction = new VersionedTransaction(message);
  transaction.sign([payer]);
  return connection.sendTransaction(transaction, options);
}

const CONFIRMATION_POLL_MS = 100;
const CONFIRMATION_ATTEMPTS = 100;

/** Polls statuses instead of confirmTransaction, which needs a websocket the local RPC does not serve. */
async function waitUntilLanded(connection: Connection, signature: string): Promise<void> {
  for (let attempt = 0; attempt < CONFIRMATION_ATTEMPTS; attempt++) {
    const { value } = await connection.getSignatureStatuses([signature]);
    if (value[0]) return;
    await new Promise((resolve) => setTimeout(resolve, CONFIRMATION_POLL_MS));
  }
  throw new Error(`transaction ${signature} did not land`);
}
