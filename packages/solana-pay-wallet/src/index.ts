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
import bs58 from 'bs58';

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

const CONFIRMATION_POLL_MS = 100;
const CONFIRMATION_ATTEMPTS = 100;

/** A payment's transaction, signed and not yet sent: kept before it is sent, it can be sent again as it is. */
export interface SignedTransfer {
  signature: string;
  /** base64 wire bytes. */
  transaction: string;
  /** Past this block height its blockhash has expired: unless it landed by then, it never will. */
  lastValidBlockHeight: number;
}

/**
 * What became of a signed transfer: `landed` (confirmed without an error), `failed` (confirmed with one: nothing
 * moved), `landing` (the cluster has it, not confirmed yet), `unknown` (the cluster does not know it, and its blockhash
 * is still valid: not sent, dropped, or not there yet), `expired` (unknown past its last valid block height: it never
 * will land).
 */
export type TransferFate = 'landed' | 'failed' | 'landing' | 'unknown' | 'expired';

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
  const signed = await signTransferRequest(rpcUrl, payer, payment);
  await submitSignedTransfer(rpcUrl, signed, { skipPreflight: payment.skipPreflight ?? false });
  await waitUntilLanded(new Connection(rpcUrl, 'confirmed'), signed.signature);
  return signed.signature;
}

/** The transaction that pays a transfer request (see `payTransferRequest`), signed with a recent blockhash. */
export async function signTransferRequest(
  rpcUrl: string,
  payer: Keypair,
  payment: TransferRequestPayment,
): Promise<SignedTransfer> {
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

  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const wire =
    payment.version === 0
      ? signedV0(payer, instructions, blockhash)
      : signedLegacy(payer, instructions, blockhash, lastValidBlockHeight);
  const signature = VersionedTransaction.deserialize(wire).signatures[0]!;
  return {
    signature: bs58.encode(signature),
    transaction: Buffer.from(wire).toString('base64'),
    lastValidBlockHeight,
  };
}

/**
 * Sends a signed transfer as it is, without waiting for it. Sending the same transaction again cannot pay twice: the
 * cluster knows it by its signature (with preflight, one it has already is refused as AlreadyProcessed).
 */
export async function submitSignedTransfer(
  rpcUrl: string,
  signed: SignedTransfer,
  options: { skipPreflight: boolean },
): Promise<void> {
  const connection = new Connection(rpcUrl, 'confirmed');
  await connection.sendRawTransaction(Buffer.from(signed.transaction, 'base64'), options);
}

/**
 * What became of a signed transfer (see `TransferFate`). The block height is read before the status: a blockhash
 * expired at that height lets nothing land after it, so a transaction unknown to the later status read never will be;
 * the other way round, one landing between the two reads would be taken for expired. A cluster's node that keeps no
 * full history may not know an old transaction: this is for the sandbox's local chain, which keeps every one.
 */
export async function fateOfTransfer(rpcUrl: string, signed: SignedTransfer): Promise<TransferFate> {
  const connection = new Connection(rpcUrl, 'confirmed');
  const height = await connection.getBlockHeight('confirmed');
  const {
    value: [status],
  } = await connection.getSignatureStatuses([signed.signature], { searchTransactionHistory: true });
  if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized')
    return status.err === null ? 'landed' : 'failed';
  if (status) return 'landing';
  return height > signed.lastValidBlockHeight ? 'expired' : 'unknown';
}

/**
 * The fate of a transfer just sent (or on its way), once it is settled: landed, failed or expired; still `landing` or
 * `unknown` when it took longer than `timeoutMs`.
 */
export async function settledFateOf(
  rpcUrl: string,
  signed: SignedTransfer,
  timeoutMs = CONFIRMATION_POLL_MS * CONFIRMATION_ATTEMPTS,
): Promise<TransferFate> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const fate = await fateOfTransfer(rpcUrl, signed);
    if ((fate !== 'landing' && fate !== 'unknown') || Date.now() >= deadline) return fate;
    await new Promise((resolve) => setTimeout(resolve, CONFIRMATION_POLL_MS));
  }
}

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

function memoInstruction(memo: string): TransactionInstruction {
  return new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [],
    data: Buffer.from(memo, 'utf8'),
  });
}

function signedV0(payer: Keypair, instructions: TransactionInstruction[], blockhash: string): Uint8Array {
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions,
  }).compileToV0Message();
  const transaction = new VersionedTransaction(message);
  transaction.sign([payer]);
  return transaction.serialize();
}

function signedLegacy(
  payer: Keypair,
  instructions: TransactionInstruction[],
  blockhash: string,
  lastValidBlockHeight: number,
): Uint8Array {
  const transaction = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
    ...instructions,
  );
  transaction.sign(payer);
  return transaction.serialize();
}

/** Polls statuses instead of confirmTransaction, which needs a websocket the local RPC does not serve. */
async function waitUntilLanded(connection: Connection, signature: string): Promise<void> {
  for (let attempt = 0; attempt < CONFIRMATION_ATTEMPTS; attempt++) {
    const { value } = await connection.getSignatureStatuses([signature]);
    if (value[0]) return;
    await new Promise((resolve) => setTimeout(resolve, CONFIRMATION_POLL_MS));
  }
  throw new Error(`transaction ${signature} did not land`);
}
