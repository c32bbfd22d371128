import { decodeBase58 } from '../domain/base58';
import type { TransactionSigner } from '../domain/transaction-signer';
import { signerPublicKeyOf } from './environment-key-signer';
import type { RefundRail } from './refund-rail';
import type { SandboxWallet } from './sandbox-wallet';
import type { SolanaRpc } from './solana-rpc';

/**
 * `load()` run on the first call, its promise kept for every later one (calls made meanwhile wait for the same load).
 * What the watcher loads only when it is needed (web3.js's refunds and test wallet, docs/adr/0054) goes through it. A
 * module whose loading throws is a defect of the build: every call fails with it, as the compiled file would.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load());
}

/**
 * The refund rail of `refund-chain.ts`, made on the first call: building and signing transactions is web3.js's and
 * spl-token's, about 5 MiB of heap and their code, and a watcher that carries out no refund never loads them
 * (docs/adr/0054).
 */
export function refundChainOnFirstUse(
  rpc: SolanaRpc,
  signer: TransactionSigner,
  maxComputeUnitPrice: number,
): RefundRail {
  const chain = onFirstUse(async () => {
    const [{ RefundChain }, { createRpcConnection }] = await Promise.all([
      import('./refund-chain'),
      import('./web3-connection'),
    ]);
    return new RefundChain(createRpcConnection(rpc), signer, maxComputeUnitPrice);
  });
  return {
    payerOf: async (transfer) => (await chain()).payerOf(transfer),
    signFresh: async (order) => (await chain()).signFresh(order),
    signHigher: async (order, previous) => (await chain()).signHigher(order, previous),
    send: async (transaction) => (await chain()).send(transaction),
    statuses: async (signatures) => (await chain()).statuses(signatures),
    blockHeight: async () => (await chain()).blockHeight(),
  };
}

/**
 * The sandbox's test wallet (`sandbox-wallet-chain.ts`), its key checked now and its code loaded on the first
 * simulated payment: a watcher that simulates none never loads web3.js (docs/adr/0054).
 */
export function sandboxWalletOnFirstUse(rpcUrl: string, secretKeyBase58: string): SandboxWallet {
  const secretKey = decodeBase58(secretKeyBase58);
  // A seed followed by the public key it makes, as web3.js's Keypair requires: refused at start, not at first use.
  if (secretKey?.length !== 64 || signerPublicKeyOf(secretKey) === null)
    throw new Error('SANDBOX_PAYER_SECRET_KEY is not a 64-byte base58 secret key');
  const wallet = onFirstUse(() =>
    import('./sandbox-wallet-chain').then(({ chainSandboxWallet }) => chainSandboxWallet(rpcUrl, secretKey)),
  );
  return {
    sign: async (payment) => (await wallet()).sign(payment),
    send: async (signed) => (await wallet()).send(signed),
    fateOf: async (signed) => (await wallet()).fateOf(signed),
    settledFateOf: async (signed) => (await wallet()).settledFateOf(signed),
  };
}
