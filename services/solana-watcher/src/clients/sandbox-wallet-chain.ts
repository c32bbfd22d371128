import { getAccount, getAssociatedTokenAddressSync, TokenAccountNotFoundError } from '@solana/spl-token';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { inOutgoingCall, tracerOf } from '@gateway/observability';
import {
  fateOfTransfer,
  settledFateOf,
  signTransferRequest,
  submitSignedTransfer,
} from '@gateway/solana-pay-wallet';
import { TestWalletShortOfFunds, type SandboxWallet } from './sandbox-wallet';

const tracer = tracerOf('solana-watcher:sandbox-wallet');

/** The test wallet on chain: `sandboxWallet` loads it on first use. */
export function chainSandboxWallet(rpcUrl: string, secretKey: Uint8Array): SandboxWallet {
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
