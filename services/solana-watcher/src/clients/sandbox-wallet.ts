import type { SignedTransfer, TransferFate } from '@gateway/solana-pay-wallet';

export interface WalletPayment {
  recipient: string;
  mint: string;
  reference: string;
  amountBaseUnits: bigint;
}

/**
 * The funded test wallet that pays simulated sandbox payments on the local chain, as a buyer's wallet would. Signing
 * and sending are apart, so the signed transaction can be kept before it is sent and looked up (or sent again as it
 * is) by a later delivery of the same command.
 */
export interface SandboxWallet {
  /** The transaction paying `payment`, signed; TestWalletShortOfFunds when the wallet holds less than it pays. */
  sign(payment: WalletPayment): Promise<SignedTransfer>;
  /** Sends it as it is (with preflight), without waiting for it. */
  send(signed: SignedTransfer): Promise<void>;
  /** What became of a transaction signed earlier. */
  fateOf(signed: SignedTransfer): Promise<TransferFate>;
  /** Its fate once settled (landed, failed, expired), or as it stands after about ten seconds. */
  settledFateOf(signed: SignedTransfer): Promise<TransferFate>;
}

/** The test wallet holds less of the token than a payment asks: sending it would fail the same way every time. */
export class TestWalletShortOfFunds extends Error {
  constructor(held: bigint, asked: bigint) {
    super(`the test wallet holds ${held} base units, ${asked} asked`);
  }
}
