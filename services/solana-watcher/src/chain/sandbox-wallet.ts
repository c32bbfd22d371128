import { Keypair, PublicKey } from '@solana/web3.js';
import { decodeBase58 } from '../domain/base58';

export interface WalletPayment {
  recipient: string;
  mint: string;
  reference: string;
  amountBaseUnits: bigint;
}

/** The funded test wallet that pays simulated sandbox payments on the local chain, as a buyer's wallet would. */
export interface SandboxWallet {
  pay(payment: WalletPayment): Promise<string>;
}

export function sandboxWallet(rpcUrl: string, secretKeyBase58: string): SandboxWallet {
  const secretKey = decodeBase58(secretKeyBase58);
  if (secretKey?.length !== 64)
    throw new Error('SANDBOX_PAYER_SECRET_KEY is not a 64-byte base58 secret key');
  const payer = Keypair.fromSecretKey(secretKey);
  return {
    async pay(payment) {
      // Loaded on first use: the local chain's wallet helper exists for the sandbox only, production never loads it.
      const { payTransferRequest } = await import('@gateway/solana-localnet');
      return payTransferRequest(rpcUrl, payer, {
        recipient: new PublicKey(payment.recipient),
        mint: new PublicKey(payment.mint),
        reference: new PublicKey(payment.reference),
        amountBaseUnits: payment.amountBaseUnits,
      });
    },
  };
}
