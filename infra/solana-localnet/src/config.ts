import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { Joi, commonEnv, loadConfig } from '@gateway/config';

const SANDBOX_PAYER_SECRET_KEY =
  '36PQcdQQ5CPv7Abt3hDp6QdgaSEuPSv5SZeCxE4eis1X9Vr66eqhGjsChLQQCewUEiHhaSLAbNeTFJ2MyX9Xheim';

export interface LocalnetConfig {
  port: number;
  host: string;
  logLevel: string;
  receivingWallet: PublicKey | undefined;
  payer: Keypair | undefined;
  seedWallets: PublicKey[];
}

interface LocalnetEnv {
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;
  RECEIVING_WALLET?: string;
  PAYER_SECRET_KEY?: string;
  SEED_WALLETS: string;
}

const base58Key = Joi.string().pattern(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

const schema = Joi.object<LocalnetEnv>({
  PORT: Joi.number().port().default(8899),
  HOST: Joi.string().default('127.0.0.1'),
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  RECEIVING_WALLET: base58Key.optional(),
  /**
   * base58 of the 64-byte secret key of the funded test payer. The default is the sandbox payer the watcher's
   * `simulate` uses by default too, so the stack works with no set-up; it only ever holds local test tokens.
   */
  PAYER_SECRET_KEY: Joi.string()
    .pattern(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/)
    .default(SANDBOX_PAYER_SECRET_KEY),
  /** Comma-separated public keys funded at start with SOL and every stablecoin. */
  SEED_WALLETS: Joi.string()
    .pattern(/^([1-9A-HJ-NP-Za-km-z]{32,44})(,[1-9A-HJ-NP-Za-km-z]{32,44})*$/)
    .allow('')
    .default(''),
});

export function readConfig(env: NodeJS.ProcessEnv = process.env): LocalnetConfig {
  const values = loadConfig(schema, env);
  return {
    port: values.PORT,
    host: values.HOST,
    logLevel: values.LOG_LEVEL,
    receivingWallet: values.RECEIVING_WALLET ? new PublicKey(values.RECEIVING_WALLET) : undefined,
    payer: values.PAYER_SECRET_KEY ? Keypair.fromSecretKey(bs58.decode(values.PAYER_SECRET_KEY)) : undefined,
    seedWallets: values.SEED_WALLETS ? values.SEED_WALLETS.split(',').map((key) => new PublicKey(key)) : [],
  };
}
