import { getAccount, getAssociatedTokenAddressSync, TokenAccountNotFoundError } from '@solana/spl-token';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { inOutgoingCall, tracerOf } from '@gateway/observability';
import {
  fateOfTransfer,
  settledFateOf,
  signTransferRequest,
  submitSignedTransfer,
  type SignedTransfer,
  type TransferFate,
} from '@gateway/solana-pay-wallet';
import { decodeBase58 } from '../domain/base58';

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

const tracer = tracerOf('solana-watcher:sandbox-wallet');

export function sandboxWallet(rpcUrl: string, secretKeyBase58: string): SandboxWallet {
  const secretKey = decodeBase58(secretKeyBase58);
  if (secretKey?.length !== 64)
    throw new Error('SANDBOX_PAYER_SECRET_KEY is not a 64-byte base58 secret key');
  const payer = Keypair.fromSecretKey(secretKey);

  /** What the wallet holds of a token (none without a token account); undefined for an unknown mint. */
  const heldOf = async (mint: PublicKey): Promise<bigint | undefined> => {
    const connection = new Connection(rpcUrl, 'confirmed');
    const tokenProgram = (await connection.getAccountInfo(mint))?.owner;
    if (!tokenProgram) return undefined;
    const source = getAssociatedTokenAddressSync(mint, payer.publicKey, false, tokenProgram);
    return getAccount(connection, source, 'confirmed', tokenProgram).then(
      (account) => account.amount,
      (err: unknown) => {
        if (err instanceof TokenAccountNotFoundError) return 0n;
        throw err;
      },
    );
  };

  // Its RPC calls are spans naming the node's host only, as the watcher's own (a key may be in the URL's path).
  const rpc = <T>(name: string, call: () => Promise<T>): Promise<T> =>
    inOutgoingCall(tracer, `Solana RPC sandbox payment ${name}`, rpcUrl, {}, call);
  return {
    sign: (payment) =>
      rpc('sign', async () => {
        const held = await heldOf(new PublicKey(payment.mint));
        if (held !== undefined && held < payment.amountBaseUnits)
          throw new TestWalletShortOfFunds(held, payment.amountBaseUnits);
        return signTransferRequest(rpcUrl, payer, {
          recipient: new PublicKey(payment.recipient),
          mint: new PublicKey(payment.mint),
          reference: new PublicKey(payment.reference),
          amountBaseUnits: payment.amountBaseUnits,
        });
      }),
    send: (signed) => rpc('send', () => submitSignedTransfer(rpcUrl, signed, { skipPreflight: false })),
    fateOf: (signed) => rpc('status', () => fateOfTransfer(rpcUrl, signed)),
    settledFateOf: (signed) => rpc('confirmation', () => settledFateOf(rpcUrl, signed)),
  };
}
