export * from './message';
export * from './envelope';
export * from './errors';
export * from './common';
export * from './pages';
export * from './text-fields';
export * from './events';
export * from './payment-commands';
export * from './pix-messages';
export * from './crypto-messages';
export * from './checkout-commands';
export * from './customer-commands';
export * from './webhook-commands';
export * from './refund-messages';
export * from './event-commands';
export * from './public-api';
// A checkout and the PIX and crypto instructions each have a public shape and a message of the same name (the message
// has no `url`, or amounts in base units): here the bare names are the messages', the public shapes take `Public`.
export type { Checkout } from './checkout-commands';
export type { CryptoInstructions, PixInstructions } from './payment-commands';
export type {
  Checkout as PublicCheckout,
  CryptoInstructions as PublicCryptoInstructions,
  PixInstructions as PublicPixInstructions,
} from './public-api';
export { catalog, findMessage } from './catalog';
export * from './ids';
export * from './money';
