/**
 * What signs the watcher's outgoing transactions (refunds, returns of funds) for the receiving wallet, as REFUND_SIGNER
 * chooses: the environment's key or a keypair file (`EnvironmentKeySigner`), or a key manager that holds the key and
 * only answers signatures (`VaultTransitSigner`); docs/adr/0037-refund-signer-choice.md. The watcher never sees a key through this port, so none can reach a log or an error.
 */
export interface TransactionSigner {
  /** base58 public key of the wallet it signs for (RECEIVING_WALLET). */
  readonly publicKey: string;
  /** The ed25519 signature (64 bytes) of a serialized transaction message. */
  sign(message: Uint8Array): Promise<Uint8Array>;
}
