import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import {
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type Connection,
  type Keypair,
} from '@solana/web3.js';
import type { RefundPayout, SignatureStatusLike } from '../domain/refund';
import { encodeBase58 } from '../domain/base58';
import { findTransferInstructions } from '../domain/transfer-validation';
import { MAX_SUPPORTED_TRANSACTION_VERSION } from './signature-scanner';

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** What one refund transaction pays. */
export interface RefundOrder {
  mint: string;
  decimals: number;
  recipients: readonly RefundPayout[];
  /** Written on chain as a memo before the transfers (`refundMemo`). */
  memo: string | null;
}

/** A signed refund transaction: stored before it is sent, sent as it is until it lands or can no longer. */
export interface SignedRefund {
  signature: string;
  /** base64 wire bytes. */
  transaction: string;
  /** Past this block height its blockhash has expired: unless it landed by then, it never will. */
  lastValidBlockHeight: number;
}

/** The transaction cannot be made from what the refund pays (too many recipients for one transaction, a bad key). */
export class RefundNotBuildable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RefundNotBuildable';
  }
}

/**
 * The chain side of refunds: who paid, signing as the receiving wallet, sending, and reading what became of a
 * transaction. Every method is one or two RPC requests; none retries beyond the connection's own policy.
 */
export class RefundChain {
  private readonly tokenPrograms = new Map<string, PublicKey>();

  constructor(
    private readonly connection: Connection,
    private readonly signer: Keypair,
  ) {}

  /**
   * The owner of the token account a recorded transfer debited, from its transaction on chain; null when the
   * transaction shows no transfer to the reference. Throws when the node does not serve the transaction (yet).
   */
  async payerOf(transfer: {
    signature: string;
    reference: string;
    instruction?: string;
  }): Promise<string | null> {
    const transaction = await this.connection.getTransaction(transfer.signature, {
      maxSupportedTransactionVersion: MAX_SUPPORTED_TRANSACTION_VERSION,
      commitment: 'confirmed',
    });
    if (!transaction) throw new Error(`transaction ${transfer.signature} not served by the node`);
    const found = findTransferInstructions(transaction, {
      receivingWallet: this.signer.publicKey.toBase58(),
      acceptedMints: new Map(),
      knownReferences: new Set([transfer.reference]),
    });
    const paying = found.find((one) => one.instruction === transfer.instruction) ?? found[0];
    return paying?.sourceOwner ?? null;
  }

  /**
   * Signs the refund with a fresh blockhash: from the receiving wallet's token account to each recipient's associated
   * token account (created first when missing, the wallet paying its rent), the memo before the transfers.
   */
  async sign(order: RefundOrder): Promise<SignedRefund> {
    const mint = new PublicKey(order.mint);
    const tokenProgram = await this.tokenProgramOf(mint);
    const { blockhash, lastValidBlockHeight } = await this.connection.getLatestBlockhash('confirmed');
    let transaction: VersionedTransaction;
    try {
      transaction = this.build(order, mint, tokenProgram, blockhash);
    } catch (err) {
      throw new RefundNotBuildable(`A transação de reembolso não pôde ser montada: ${String(err)}`);
    }
    return {
      signature: encodeBase58(transaction.signatures[0]!),
      transaction: Buffer.from(transaction.serialize()).toString('base64'),
      lastValidBlockHeight,
    };
  }

  /**
   * Hands the signed bytes to the node, without preflight: a transaction failing on chain lands with its error (and
   * pays its fee) like any other, and its status says so. Sending the same bytes again is harmless.
   */
  async send(transaction: string): Promise<void> {
    await this.connection.sendRawTransaction(Buffer.from(transaction, 'base64'), {
      skipPreflight: true,
      maxRetries: 0,
    });
  }

  async status(signature: string): Promise<SignatureStatusLike | null> {
    const { value } = await this.connection.getSignatureStatuses([signature], {
      searchTransactionHistory: true,
    });
    return value[0] ?? null;
  }

  blockHeight(): Promise<number> {
    return this.connection.getBlockHeight('confirmed');
  }

  private build(
    order: RefundOrder,
    mint: PublicKey,
    tokenProgram: PublicKey,
    blockhash: string,
  ): VersionedTransaction {
    const wallet = this.signer.publicKey;
    const source = getAssociatedTokenAddressSync(mint, wallet, false, tokenProgram);
    const destinations = order.recipients.map((recipient) => {
      const owner = new PublicKey(recipient.owner);
      // A payer may be a program-derived account (a smart wallet): its token account is derived all the same.
      return { owner, account: getAssociatedTokenAddressSync(mint, owner, true, tokenProgram), recipient };
    });
    const instructions = [
      ...destinations.map(({ owner, account }) =>
        createAssociatedTokenAccountIdempotentInstruction(wallet, account, owner, mint, tokenProgram),
      ),
      ...(order.memo === null
        ? []
        : [
            new TransactionInstruction({
              programId: MEMO_PROGRAM_ID,
              keys: [],
              data: Buffer.from(order.memo),
            }),
          ]),
      ...destinations.map(({ account, recipient }) =>
        createTransferCheckedInstruction(
          source,
          mint,
          account,
          wallet,
          BigInt(recipient.amount_base_units),
          order.decimals,
          [],
          tokenProgram,
        ),
      ),
    ];
    const message = new TransactionMessage({
      payerKey: wallet,
      recentBlockhash: blockhash,
      instructions,
    }).compileToV0Message();
    const transaction = new VersionedTransaction(message);
    transaction.sign([this.signer]);
    // Checks the size limit now: a transaction too large is refused by every node.
    transaction.serialize();
    return transaction;
  }

  private async tokenProgramOf(mint: PublicKey): Promise<PublicKey> {
    const known = this.tokenPrograms.get(mint.toBase58());
    if (known) return known;
    const account = await this.connection.getAccountInfo(mint);
    if (!account) throw new Error(`mint ${mint.toBase58()} not found on chain`);
    this.tokenPrograms.set(mint.toBase58(), account.owner);
    return account.owner;
  }
}
