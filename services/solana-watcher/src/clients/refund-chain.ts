import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import {
  ComputeBudgetProgram,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type Connection,
} from '@solana/web3.js';
import { createHash } from 'node:crypto';
import {
  computeUnitLimitFor,
  escalatedComputeUnitPrice,
  priceFromRecentFees,
  type SignatureStatusLike,
} from '../domain/refund';
import { encodeBase58 } from '../domain/base58';
import type { TransactionSigner } from '../domain/transaction-signer';
import { findTransferInstructions } from '../domain/transfer-validation';
import {
  RefundNotBuildable,
  type PreviousAttempt,
  type RefundOrder,
  type RefundRail,
  type SignedRefund,
} from './refund-rail';
import { MAX_SUPPORTED_TRANSACTION_VERSION } from './signature-scanner';

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/**
 * The chain side of refunds: who paid, signing as the receiving wallet (through its signer), pricing, sending, and
 * reading what became of a transaction. Every method is one or two RPC requests; none retries beyond the
 * connection's own policy.
 */
export class RefundChain implements RefundRail {
  private readonly tokenPrograms = new Map<string, PublicKey>();
  private readonly wallet: PublicKey;
  private guardRent?: number;

  constructor(
    private readonly connection: Connection,
    private readonly signer: TransactionSigner,
    /** The highest compute-unit price (micro-lamports) any transaction offers, whatever the fee market asks. */
    private readonly maxComputeUnitPrice: number,
  ) {
    this.wallet = new PublicKey(signer.publicKey);
  }

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
      receivingWallet: this.signer.publicKey,
      acceptedMints: new Map(),
      knownReferences: new Set([transfer.reference]),
    });
    const paying = found.find((one) => one.instruction === transfer.instruction) ?? found[0];
    return paying?.sourceOwner ?? null;
  }

  /**
   * Signs the refund's first transaction, or one after every earlier one expired: a fresh blockhash and the price
   * recent fees ask for (see `sign`).
   */
  async signFresh(order: RefundOrder): Promise<SignedRefund> {
    const { blockhash, lastValidBlockHeight } = await this.connection.getLatestBlockhash('confirmed');
    const computeUnitPrice = await this.recentComputeUnitPrice();
    return this.sign(order, { blockhash, lastValidBlockHeight, computeUnitPrice });
  }

  /**
   * Signs the refund again with the previous attempt's blockhash at a higher price (the previous one raised, or what
   * recent fees ask for now if that is more), capped; null when the price is at its cap already, so the attempt on
   * record can only be sent again.
   */
  async signHigher(order: RefundOrder, previous: PreviousAttempt): Promise<SignedRefund | null> {
    const computeUnitPrice = escalatedComputeUnitPrice(
      previous.computeUnitPrice,
      await this.recentComputeUnitPrice(),
      this.maxComputeUnitPrice,
    );
    if (computeUnitPrice <= previous.computeUnitPrice) return null;
    return this.sign(order, { ...previous, computeUnitPrice });
  }

  /**
   * The compute-unit price recent blocks ask for a transaction writing the receiving wallet (its fee account), as
   * `priceFromRecentFees` reads them, capped.
   */
  private async recentComputeUnitPrice(): Promise<number> {
    const fees = await this.connection.getRecentPrioritizationFees({ lockedWritableAccounts: [this.wallet] });
    return Math.min(this.maxComputeUnitPrice, priceFromRecentFees(fees.map((fee) => fee.prioritizationFee)));
  }

  /**
   * Builds and signs the refund on the given blockhash at the given price: its guard account first (created with a
   * seed of the refund id, the wallet paying its rent: a second transaction of the same refund fails on it, so at
   * most one ever pays), then from the receiving wallet's token account to each recipient's associated token account
   * (created first when missing, the wallet paying its rent), the memo before the transfers.
   */
  private async sign(order: RefundOrder, attempt: PreviousAttempt): Promise<SignedRefund> {
    const mint = new PublicKey(order.mint);
    const tokenProgram = await this.tokenProgramOf(mint);
    this.guardRent ??= await this.connection.getMinimumBalanceForRentExemption(0);
    const guardSeed = guardSeedOf(order.refundId);
    const guard = await PublicKey.createWithSeed(this.wallet, guardSeed, SystemProgram.programId);
    let transaction: VersionedTransaction;
    let message: Uint8Array;
    try {
      transaction = this.build(order, mint, tokenProgram, attempt, { seed: guardSeed, account: guard });
      message = transaction.message.serialize();
    } catch (err) {
      throw notBuildable(err);
    }
    // A signer's failure (a KMS not answering) is no reason to fail the refund: it is tried again.
    transaction.addSignature(this.wallet, await this.signer.sign(message));
    let wire: Uint8Array;
    try {
      // Checks the size limit now: a transaction too large is refused by every node.
      wire = transaction.serialize();
    } catch (err) {
      throw notBuildable(err);
    }
    return {
      signature: encodeBase58(transaction.signatures[0]!),
      transaction: Buffer.from(wire).toString('base64'),
      lastValidBlockHeight: attempt.lastValidBlockHeight,
      blockhash: attempt.blockhash,
      computeUnitPrice: attempt.computeUnitPrice,
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

  /** The status of each signature, in order (null: the cluster does not know it). */
  async statuses(signatures: readonly string[]): Promise<(SignatureStatusLike | null)[]> {
    const { value } = await this.connection.getSignatureStatuses([...signatures], {
      searchTransactionHistory: true,
    });
    return signatures.map((_, index) => value[index] ?? null);
  }

  blockHeight(): Promise<number> {
    return this.connection.getBlockHeight('confirmed');
  }

  private build(
    order: RefundOrder,
    mint: PublicKey,
    tokenProgram: PublicKey,
    attempt: PreviousAttempt,
    guard: { seed: string; account: PublicKey },
  ): VersionedTransaction {
    const { wallet } = this;
    const source = getAssociatedTokenAddressSync(mint, wallet, false, tokenProgram);
    const destinations = order.recipients.map((recipient) => {
      const owner = new PublicKey(recipient.owner);
      // A payer may be a program-derived account (a smart wallet): its token account is derived all the same.
      return { owner, account: getAssociatedTokenAddressSync(mint, owner, true, tokenProgram), recipient };
    });
    const instructions = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: computeUnitLimitFor(order.recipients.length) }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: attempt.computeUnitPrice }),
      SystemProgram.createAccountWithSeed({
        fromPubkey: wallet,
        basePubkey: wallet,
        seed: guard.seed,
        newAccountPubkey: guard.account,
        lamports: this.guardRent!,
        space: 0,
        programId: SystemProgram.programId,
      }),
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
      recentBlockhash: attempt.blockhash,
      instructions,
    }).compileToV0Message();
    return new VersionedTransaction(message);
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

/** The refund cannot be built; the cause's message only (it never holds a key: the signer keeps it). */
function notBuildable(err: unknown): RefundNotBuildable {
  return new RefundNotBuildable(
    `A transação de reembolso não pôde ser montada: ${err instanceof Error ? err.message : 'erro'}`,
  );
}

/** A seed of at most 32 characters naming the refund's guard account. */
function guardSeedOf(refundId: string): string {
  return createHash('sha256').update(`refund ${refundId}`).digest('base64url').slice(0, 32);
}
