export { payTransferRequest, startLocalnet, type Localnet } from '@gateway/solana-localnet';
