import { PublicKey } from '@solana/web3.js';

export type StablecoinSymbol = 'USDC' | 'USDT' | 'EURC';

/** Mainnet mint addresses, recreated on the local chain so configuration is the same in every environment. */
export const STABLECOIN_MINTS: Record<StablecoinSymbol, PublicKey> = {
  USDC: new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
  USDT: new PublicKey('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'),
  EURC: new PublicKey('HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr'),
};
