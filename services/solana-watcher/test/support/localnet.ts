export {
  forwarderInstruction,
  payTransferRequest,
  startLocalnet,
  type Localnet,
  type RpcModes,
} from '@gateway/solana-localnet';
