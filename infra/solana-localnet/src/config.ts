import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import {
  Joi,
  SANDBOX_PAYER_SECRET_KEY,
  bindHost,
  commonEnv,
  loadConfig,
  solanaPublicKey,
  solanaSecretKey,
  variableNames,
} from '@gateway/config';
import { type RateLimit, type RpcModes } from './rpc-modes';

export interface LocalnetConfig {
  port: number;
  host: string;
  logLevel: string;
  receivingWallet: PublicKey | undefined;
  payer: Keypair | undefined;
  seedWallets: PublicKey[];
  modes: RpcModes;
}

/**
 * The local chain stands in for a Solana cluster next to the gateway's own processes, so every variable of its own
 * is prefixed `SOLANA_LOCALNET_`: a `PORT` meant for another process never reaches it.
 */
interface LocalnetEnv {
  SOLANA_LOCALNET_PORT: number;
  SOLANA_LOCALNET_HOST: string;
  LOG_LEVEL: string;
  SOLANA_LOCALNET_RECEIVING_WALLET?: string;
  SOLANA_LOCALNET_PAYER_SECRET_KEY?: string;
  SOLANA_LOCALNET_SEED_WALLETS: string;
  SOLANA_LOCALNET_CONFIRMED_LAG_MS: number;
  SOLANA_LOCALNET_FINALIZED_LAG_MS: number;
  SOLANA_LOCALNET_TRANSACTION_LAG_MS: number;
  SOLANA_LOCALNET_DROP_TRANSACTIONS: boolean;
  SOLANA_LOCALNET_CONGESTION_CU_PRICE: number;
  SOLANA_LOCALNET_RATE_LIMIT: Record<string, number> | '';
  SOLANA_LOCALNET_RATE_WINDOW_MS: number;
  SOLANA_LOCALNET_RETRY_AFTER: RateLimit['retryAfter'];
}

const lagMs = Joi.number().integer().min(0).max(600_000).default(0);

/** `getTransaction=40,getSignaturesForAddress=40,*=100`: requests per window per method, `*` for the others. */
const perMethodBudget = Joi.custom((value: unknown, helpers) => {
  const budgets: Record<string, number> = {};
  for (const entry of String(value).split(',').filter(Boolean)) {
    const match = /^(\*|[A-Za-z]+)=(\d+)$/.exec(entry.trim());
    if (!match) return helpers.error('any.invalid');
    budgets[match[1]!] = Number(match[2]);
  }
  return budgets;
}, 'method=requests list');

/** Its variables' rules; the launcher checks the port it hands the local chain by the same rule. */
export const solanaLocalnetSchema = Joi.object<LocalnetEnv>({
  SOLANA_LOCALNET_PORT: Joi.number().port().default(8899),
  SOLANA_LOCALNET_HOST: bindHost.default('127.0.0.1'),
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  SOLANA_LOCALNET_RECEIVING_WALLET: solanaPublicKey.optional(),
  /**
   * base58 of the 64-byte secret key of the funded test payer. The default is the sandbox payer the watcher's
   * `simulate` uses by default too, so the stack works with no set-up; it only ever holds local test tokens.
   */
  SOLANA_LOCALNET_PAYER_SECRET_KEY: solanaSecretKey.default(SANDBOX_PAYER_SECRET_KEY),
  /** Comma-separated public keys funded at start with SOL and every stablecoin. */
  SOLANA_LOCALNET_SEED_WALLETS: Joi.string()
    .pattern(/^([1-9A-HJ-NP-Za-km-z]{32,44})(,[1-9A-HJ-NP-Za-km-z]{32,44})*$/)
    .allow('')
    .default(''),
  /** Real-node behaviours, all off by default: see RpcModes. */
  SOLANA_LOCALNET_CONFIRMED_LAG_MS: lagMs,
  SOLANA_LOCALNET_FINALIZED_LAG_MS: lagMs,
  SOLANA_LOCALNET_TRANSACTION_LAG_MS: lagMs,
  SOLANA_LOCALNET_DROP_TRANSACTIONS: Joi.boolean().default(false),
  /** Micro-lamports per compute unit a transaction must offer to land (a congested cluster); 0: no congestion. */
  SOLANA_LOCALNET_CONGESTION_CU_PRICE: Joi.number().integer().min(0).default(0),
  /** Empty: no rate limit. */
  SOLANA_LOCALNET_RATE_LIMIT: perMethodBudget.allow('').default(''),
  SOLANA_LOCALNET_RATE_WINDOW_MS: Joi.number().integer().min(100).default(10_000),
  SOLANA_LOCALNET_RETRY_AFTER: Joi.string().valid('always', 'never', 'alternate').default('alternate'),
});

/** The variables the local chain reads (the launcher hands it these and no others). */
export const solanaLocalnetVariables = variableNames(solanaLocalnetSchema);

export function readConfig(env: NodeJS.ProcessEnv = process.env): LocalnetConfig {
  const values = loadConfig(solanaLocalnetSchema, env);
  return {
    port: values.SOLANA_LOCALNET_PORT,
    host: values.SOLANA_LOCALNET_HOST,
    logLevel: values.LOG_LEVEL,
    receivingWallet: values.SOLANA_LOCALNET_RECEIVING_WALLET
      ? new PublicKey(values.SOLANA_LOCALNET_RECEIVING_WALLET)
      : undefined,
    payer: values.SOLANA_LOCALNET_PAYER_SECRET_KEY
      ? Keypair.fromSecretKey(bs58.decode(values.SOLANA_LOCALNET_PAYER_SECRET_KEY))
      : undefined,
    seedWallets: values.SOLANA_LOCALNET_SEED_WALLETS
      ? values.SOLANA_LOCALNET_SEED_WALLETS.split(',').map((key) => new PublicKey(key))
      : [],
    modes: {
      confirmedLagMs: values.SOLANA_LOCALNET_CONFIRMED_LAG_MS,
      finalizedLagMs: values.SOLANA_LOCALNET_FINALIZED_LAG_MS,
      transactionLagMs: values.SOLANA_LOCALNET_TRANSACTION_LAG_MS,
      dropTransactions: values.SOLANA_LOCALNET_DROP_TRANSACTIONS,
      congestionComputeUnitPrice: values.SOLANA_LOCALNET_CONGESTION_CU_PRICE,
      futureVersionSignatures: [],
      rateLimit: values.SOLANA_LOCALNET_RATE_LIMIT
        ? {
            perMethod: values.SOLANA_LOCALNET_RATE_LIMIT,
            windowMs: values.SOLANA_LOCALNET_RATE_WINDOW_MS,
            retryAfter: values.SOLANA_LOCALNET_RETRY_AFTER,
          }
        : null,
    },
  };
}
