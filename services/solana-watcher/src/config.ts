import {
  ConfigError,
  DEFAULT_PAYMENT_WINDOW_SECONDS,
  Joi,
  SANDBOX_PAYER_SECRET_KEY,
  loadConfig,
  sandboxDefault,
  sandboxOnly,
  secret,
  serviceSchema,
  solanaPublicKey,
  solanaSecretKey,
  variableNames,
  type ServiceConfig,
} from '@gateway/config';
import { tokenDecimals, tokens, type Token } from '@gateway/contracts';
import { signerPublicKeyOf } from './clients/environment-key-signer';
import { KeypairFileUnusable, readKeypairFile } from './clients/keypair-file';
import { decodeBase58 } from './domain/base58';

export interface SolanaWatcherConfig extends ServiceConfig {
  SOLANA_RPC_URL: string;
  /**
   * RPC requests per second the watcher allows itself (every method together); it slows below this when the
   * provider answers 429. Production default 4: a public endpoint allows about 40 requests per 10 s per method.
   */
  SOLANA_RPC_REQUESTS_PER_SECOND: number;
  /**
   * How long after a window ends its request stays open for a transfer that landed in time but is not listed yet
   * (listing is at `confirmed`: about 1 s on mainnet, more behind a lagging RPC node). Production default 30 s,
   * sandbox 0 (the local chain confirms at once unless its lag mode is on).
   */
  CONFIRMATION_GRACE_MS: number;
  /** The platform's custodial wallet: every payment goes to its associated token accounts. */
  RECEIVING_WALLET: string;
  MINT_USDC: string;
  MINT_USDT: string;
  MINT_EURC: string;
  TOKEN_DECIMALS: number;
  QUOTE_PROVIDER: 'fixed' | 'live';
  /** Tokens per BRL for the fixed provider, as decimals (`usdc=0.18,usdt=0.18,eurc=0.16`). */
  FIXED_RATES: Partial<Record<Token, string>>;
  QUOTE_SPREAD_BPS: number;
  QUOTE_MAX_AGE_MS: number;
  QUOTE_MAX_DEVIATION_BPS: number;
  /**
   * How long a quote taken for money that arrives outside its payment's window (late, excess, in another token, naming
   * several payments) values further such money of its token before a new one is taken; default 60 s.
   */
  ARRIVAL_QUOTE_MAX_AGE_MS: number;
  COINGECKO_URL: string;
  BINANCE_URL: string;
  /** Shortest interval between detection passes; longer when idle polling would take over half the RPC pace. */
  POLL_INTERVAL_MS: number;
  /**
   * How long before a transaction the watcher could not read is read again; each failed attempt waits once more this
   * long (up to 60 times it).
   */
  UNREADABLE_RETRY_MS: number;
  PAYMENT_WINDOW_SECONDS: number;
  /**
   * What signs refunds (the token transfer back, its fee, the buyer's token account when it has none) as
   * RECEIVING_WALLET, through the signer port: `env` (REFUND_SIGNER_SECRET_KEY, the default), `keypair-file`
   * (REFUND_SIGNER_KEYPAIR_FILE) or `vault-transit` (an ed25519 key of HashiCorp Vault's Transit engine: VAULT_*).
   * Whichever it is must be RECEIVING_WALLET's key; docs/adr/0037-refund-signer-choice.md.
   */
  REFUND_SIGNER: RefundSignerKind;
  /**
   * `env` signer: base58 64-byte secret key of RECEIVING_WALLET. Required in production; never logged; must be unset
   * with another signer.
   */
  REFUND_SIGNER_SECRET_KEY?: string;
  /** `keypair-file` signer: path of a Solana keypair file (`solana-keygen new -o`), e.g. a mounted secret volume. */
  REFUND_SIGNER_KEYPAIR_FILE?: string;
  /** `vault-transit` signer: Vault's address, e.g. https://vault.internal:8200. */
  VAULT_ADDR?: string;
  /** `vault-transit` signer: the Vault token (X-Vault-Token); a secret, never logged. */
  VAULT_TOKEN?: string;
  /** `vault-transit` signer: the Vault Enterprise namespace of the mount (X-Vault-Namespace), if any. */
  VAULT_NAMESPACE?: string;
  /** `vault-transit` signer: where the Transit engine is mounted (default `transit`). */
  VAULT_TRANSIT_MOUNT: string;
  /** `vault-transit` signer: the name of the `ed25519` Transit key. */
  VAULT_TRANSIT_KEY?: string;
  /**
   * The highest compute-unit price, in micro-lamports, a refund or return transaction offers. Each starts at what
   * recent blocks paid (their 75th percentile) and is re-signed higher while it does not land, never above this.
   */
  SOLANA_MAX_COMPUTE_UNIT_PRICE: number;
  /** Below this many SOL in the receiving wallet (it pays every refund's fees) the FeePayerBalanceLow alert fires. */
  FEE_PAYER_LOW_BALANCE_SOL: number;
  /** How often the fee payer's SOL balance is read (one RPC request). */
  FEE_PAYER_BALANCE_INTERVAL_MS: number;
  /** Sandbox only: base58 secret key of the funded test wallet that pays simulated payments. */
  SANDBOX_PAYER_SECRET_KEY?: string;
}

/**
 * Sandbox defaults, fixed so the local chain and the watcher agree without configuration: receiving wallet =
 * Keypair.fromSeed(sha256('brazil-payment-gateway sandbox receiving wallet')) (its secret key signs sandbox refunds);
 * the paying wallet is @gateway/config's SANDBOX_PAYER_SECRET_KEY. Neither holds anything outside a local chain.
 */
export const SANDBOX_RECEIVING_WALLET = 'FZgM9J2ArLxEEAMH711E3Bj1LpSKZVb3zvckbfKg5XiY';
export const SANDBOX_REFUND_SIGNER_SECRET_KEY =
  'S8cHp3s11DwjcSTdNGGt6LobsNyTJJtMrzg6nbiY3s88wvgYZhpPJK9SSWPeydGj6QSnTtXU2ncqXAR7iDS3RGC';

export const refundSignerKinds = ['env', 'keypair-file', 'vault-transit'] as const;
export type RefundSignerKind = (typeof refundSignerKinds)[number];

/** Required with the `kind` signer, dropped with the others. */
function forSigner(kind: RefundSignerKind, schema: Joi.Schema): Joi.Schema {
  return Joi.any().when('REFUND_SIGNER', { is: kind, then: schema.required(), otherwise: Joi.any().strip() });
}

/** A Vault path of one segment (a key name) or several (a mount, a namespace); no segment starts with a dot. */
const vaultPath = (segments: 'one' | 'several') =>
  Joi.string().pattern(
    segments === 'one' ? /^[\w-][\w.-]*$/ : /^[\w-][\w.-]*(\/[\w-][\w.-]*)*$/,
    'Vault path',
  );

const FIXED_RATE = new RegExp(`^(${tokens.join('|')})=(\\d+(?:\\.\\d+)?)$`);

const fixedRates = Joi.custom((value: unknown, helpers) => {
  const rates: Partial<Record<Token, string>> = {};
  for (const entry of String(value).split(',').filter(Boolean)) {
    const match = FIXED_RATE.exec(entry.trim().toLowerCase());
    if (!match || Number(match[2]) <= 0) return helpers.error('any.invalid');
    rates[match[1] as Token] = match[2]!;
  }
  return rates;
}, 'token=rate list');

const schema = serviceSchema<SolanaWatcherConfig>({
  SOLANA_RPC_URL: sandboxDefault(Joi.string().uri({ scheme: ['http', 'https'] }), 'http://127.0.0.1:8899'),
  SOLANA_RPC_REQUESTS_PER_SECOND: Joi.number()
    .positive()
    .max(10_000)
    .when('APP_ENV', {
      is: 'production',
      then: Joi.any().default(4),
      // The local chain has no budget unless asked for one.
      otherwise: Joi.any().default(50),
    }),
  CONFIRMATION_GRACE_MS: Joi.number()
    .integer()
    .min(0)
    .max(600_000)
    .when('APP_ENV', {
      is: 'production',
      // Comfortably over mainnet's confirmation (about 1 s) plus an RPC node running behind.
      then: Joi.any().default(30_000),
      otherwise: Joi.any().default(0),
    }),
  RECEIVING_WALLET: sandboxOnly(solanaPublicKey, SANDBOX_RECEIVING_WALLET),
  MINT_USDC: solanaPublicKey.default('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
  MINT_USDT: solanaPublicKey.default('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'),
  MINT_EURC: solanaPublicKey.default('HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr'),
  TOKEN_DECIMALS: tokenDecimals.default(6),
  QUOTE_PROVIDER: Joi.string()
    .valid('fixed', 'live')
    .when('APP_ENV', {
      is: 'production',
      then: Joi.any().default('live'),
      otherwise: Joi.any().default('fixed'),
    }),
  FIXED_RATES: fixedRates.default({ usdc: '0.18', usdt: '0.18', eurc: '0.16' }),
  QUOTE_SPREAD_BPS: Joi.number().integer().min(0).max(5_000).default(0),
  QUOTE_MAX_AGE_MS: Joi.number().integer().min(1_000).default(300_000),
  QUOTE_MAX_DEVIATION_BPS: Joi.number().integer().min(1).default(200),
  ARRIVAL_QUOTE_MAX_AGE_MS: Joi.number().integer().min(0).default(60_000),
  COINGECKO_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('https://api.coingecko.com/api/v3'),
  BINANCE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('https://api.binance.com'),
  POLL_INTERVAL_MS: Joi.number().integer().min(10).default(1_000),
  UNREADABLE_RETRY_MS: Joi.number().integer().min(10).default(60_000),
  PAYMENT_WINDOW_SECONDS: Joi.number().integer().min(1).default(DEFAULT_PAYMENT_WINDOW_SECONDS.crypto),
  REFUND_SIGNER: Joi.string()
    .valid(...refundSignerKinds)
    .default('env'),
  REFUND_SIGNER_SECRET_KEY: Joi.any().when('REFUND_SIGNER', {
    is: Joi.valid('keypair-file', 'vault-transit'),
    // Another signer was chosen so that no key sits in the environment: one left there is refused (blank is unset).
    then: Joi.string().allow('').valid('').strip().messages({
      'any.only': '{{#label}} must be unset unless REFUND_SIGNER is env',
    }),
    otherwise: secret(SANDBOX_REFUND_SIGNER_SECRET_KEY, solanaSecretKey),
  }),
  REFUND_SIGNER_KEYPAIR_FILE: forSigner('keypair-file', Joi.string()),
  VAULT_ADDR: forSigner('vault-transit', Joi.string().uri({ scheme: ['http', 'https'] })),
  VAULT_TOKEN: forSigner('vault-transit', Joi.string()),
  VAULT_NAMESPACE: Joi.any().when('REFUND_SIGNER', {
    is: 'vault-transit',
    // As Vault's docs write it, `ns1/ns2/`: the trailing slash is dropped.
    then: vaultPath('several').replace(/\/+$/, '').optional(),
    otherwise: Joi.any().strip(),
  }),
  VAULT_TRANSIT_MOUNT: vaultPath('several').default('transit'),
  VAULT_TRANSIT_KEY: forSigner('vault-transit', vaultPath('one')),
  // 1,000,000 µL × the 90,000 units of a one-recipient refund: at most 0.00009 SOL of priority fee.
  SOLANA_MAX_COMPUTE_UNIT_PRICE: Joi.number().integer().min(0).max(100_000_000).default(1_000_000),
  FEE_PAYER_LOW_BALANCE_SOL: Joi.number().min(0).default(0.1),
  FEE_PAYER_BALANCE_INTERVAL_MS: Joi.number().integer().min(1_000).default(60_000),
  SANDBOX_PAYER_SECRET_KEY: Joi.any().when('APP_ENV', {
    is: 'production',
    then: Joi.any().strip(),
    otherwise: solanaSecretKey.default(SANDBOX_PAYER_SECRET_KEY),
  }),
});

/** The schema itself, from which docs/configuration.md is generated (scripts/config-reference.ts). */
export { schema as solanaWatcherConfigSchema };

/** The variables this service reads (the launcher hands it these and no others). */
export const solanaWatcherVariables = variableNames(schema);

export function loadSolanaWatcherConfig(env: NodeJS.ProcessEnv = process.env): SolanaWatcherConfig {
  const config = loadConfig(schema, env);
  // A signer of another wallet could never move the receiving wallet's tokens: every refund would fail. Vault's key
  // is checked the same way once it is read, at start (clients/refund-signer.ts).
  if (config.REFUND_SIGNER === 'env') {
    if (signerPublicKeyOf(decodeBase58(config.REFUND_SIGNER_SECRET_KEY!)) !== config.RECEIVING_WALLET)
      throw new ConfigError(
        ['REFUND_SIGNER_SECRET_KEY'],
        '"REFUND_SIGNER_SECRET_KEY" is not the secret key of RECEIVING_WALLET',
      );
  } else if (config.REFUND_SIGNER === 'keypair-file') {
    const variable = 'REFUND_SIGNER_KEYPAIR_FILE';
    let secretKey: Uint8Array;
    try {
      secretKey = readKeypairFile(config.REFUND_SIGNER_KEYPAIR_FILE!);
    } catch (err) {
      if (!(err instanceof KeypairFileUnusable)) throw err;
      throw new ConfigError([variable], `"${variable}": ${err.message}`);
    }
    if (signerPublicKeyOf(secretKey) !== config.RECEIVING_WALLET)
      throw new ConfigError([variable], `"${variable}" is not the keypair of RECEIVING_WALLET`);
  }
  return config;
}
