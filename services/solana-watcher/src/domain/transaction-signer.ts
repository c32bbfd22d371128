/**
 * What signs the watcher's outgoing transactions (refunds, returns of funds) for the receiving wallet: the
 * environment's key by default (`EnvironmentKeySigner`), or a KMS or HSM that holds the key and only answers
 * signatures. The watcher never sees a key through this port, so none can reach a log or an error.
 */
export interface TransactionSigner {
  /** base58 public key of the wallet it signs for (RECEIVING_WALLET). */
  readonly publicKey: string;
  /** The ed25519 signature (64 bytes) of a serialized transaction message. */
  sign(message: Uint8Array): Promise<Uint8Array>;
}
