export {
  forwarderInstruction,
  payTransferRequest,
  signTransferRequest,
  startLocalnet,
  type Localnet,
  type RpcModes,
  type SignedTransfer,
} from '@gateway/solana-localnet';
