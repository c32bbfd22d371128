// The watcher's package.json does not list @gateway/solana-localnet yet, so the test chain is reached by path.
export { payTransferRequest, startLocalnet, type Localnet } from '../../../../infra/solana-localnet/src';
