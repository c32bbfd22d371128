import { Keypair } from '@solana/web3.js';
import { developmentValues, refusedVariables, without } from '@gateway/testkit';
import {
  SANDBOX_RECEIVING_WALLET,
  SANDBOX_REFUND_SIGNER_SECRET_KEY,
  loadSolanaWatcherConfig,
} from '../src/config';
import { encodeBase58 } from '../src/domain/base58';

const receivingWallet = Keypair.generate();
const production = {
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://watcher:pw@db.internal:5432/gateway',
  AMQP_URL: 'amqps://watcher:pw@mq.internal:5671',
  SOLANA_RPC_URL: 'https://rpc.example.com',
  RECEIVING_WALLET: receivingWallet.publicKey.toBase58(),
  REFUND_SIGNER_SECRET_KEY: encodeBase58(receivingWallet.secretKey),
};

describe('solana-watcher config', () => {
  it('in the sandbox, defaults to the documented dev wallets, the local chain and fixed quotes', () => {
    const config = loadSolanaWatcherConfig({ APP_ENV: 'sandbox' });
    expect(config).toMatchObject({
      APP_ENV: 'sandbox',
      SOLANA_RPC_URL: 'http://127.0.0.1:8899',
      RECEIVING_WALLET: SANDBOX_RECEIVING_WALLET,
      QUOTE_PROVIDER: 'fixed',
      FIXED_RATES: { usdc: '0.18', usdt: '0.18', eurc: '0.16' },
      POLL_INTERVAL_MS: 1000,
      SOLANA_RPC_REQUESTS_PER_SECOND: 50,
      // The local chain confirms at once unless its lag mode is on.
      CONFIRMATION_GRACE_MS: 0,
      PAYMENT_WINDOW_SECONDS: 1800,
      TOKEN_DECIMALS: 6,
      METRICS_HOST: '127.0.0.1',
    });
    expect(config.SANDBOX_PAYER_SECRET_KEY).toEqual(expect.any(String));
    // Refunds are signed by the sandbox receiving wallet itself.
    expect(config.REFUND_SIGNER_SECRET_KEY).toBe(SANDBOX_REFUND_SIGNER_SECRET_KEY);
  });

  it('in the sandbox, a receiving wallet of its own needs its own refund signer', () => {
    expect(
      refusedVariables(() =>
        loadSolanaWatcherConfig({ APP_ENV: 'sandbox', RECEIVING_WALLET: production.RECEIVING_WALLET }),
      ),
    ).toEqual(['REFUND_SIGNER_SECRET_KEY']);
  });

  it('without APP_ENV it runs as production and refuses to start without its production variables', () => {
    expect(refusedVariables(() => loadSolanaWatcherConfig({}))).toEqual([
      'AMQP_URL',
      'DATABASE_URL',
      'RECEIVING_WALLET',
      'REFUND_SIGNER_SECRET_KEY',
      'SOLANA_RPC_URL',
    ]);
  });

  it('in production, with every variable set, it loads with live quotes, no sandbox payer and no local value', () => {
    const config = loadSolanaWatcherConfig({ ...production, SANDBOX_PAYER_SECRET_KEY: 'ignored' });
    expect(config).toMatchObject(production);
    expect(config.QUOTE_PROVIDER).toBe('live');
    // Within a public endpoint's 40 requests per 10 s per method.
    expect(config.SOLANA_RPC_REQUESTS_PER_SECOND).toBe(4);
    // Over mainnet's confirmation plus a lagging RPC node.
    expect(config.CONFIRMATION_GRACE_MS).toBe(30_000);
    expect(config.SANDBOX_PAYER_SECRET_KEY).toBeUndefined();
    expect(developmentValues(config, ['METRICS_HOST'])).toEqual({});
  });

  it.each(Object.keys(production).filter((name) => name !== 'APP_ENV'))(
    'in production, without %s it refuses to start, naming it',
    (name) => {
      expect(refusedVariables(() => loadSolanaWatcherConfig(without(production, name)))).toEqual([name]);
    },
  );

  it('in production, the sandbox receiving wallet (its key derives from a published seed) is refused', () => {
    expect(
      refusedVariables(() =>
        loadSolanaWatcherConfig({ ...production, RECEIVING_WALLET: SANDBOX_RECEIVING_WALLET }),
      ),
    ).toEqual(['RECEIVING_WALLET']);
  });

  it("in production, a refund signer that is not the receiving wallet's key refuses to start, naming it", () => {
    expect(
      refusedVariables(() =>
        loadSolanaWatcherConfig({
          ...production,
          REFUND_SIGNER_SECRET_KEY: encodeBase58(Keypair.generate().secretKey),
        }),
      ),
    ).toEqual(['REFUND_SIGNER_SECRET_KEY']);
  });

  it('in production, the sandbox refund signer (a published seed) is refused even with its wallet', () => {
    expect(
      refusedVariables(() =>
        loadSolanaWatcherConfig({
          ...production,
          RECEIVING_WALLET: SANDBOX_RECEIVING_WALLET,
          REFUND_SIGNER_SECRET_KEY: SANDBOX_REFUND_SIGNER_SECRET_KEY,
        }),
      ),
    ).toEqual(['RECEIVING_WALLET', 'REFUND_SIGNER_SECRET_KEY']);
  });

  it('a refund signer that is not a key pair (its public half does not match its secret half) is refused', () => {
    const secret = Uint8Array.from(receivingWallet.secretKey);
    secret[63] = secret[63]! ^ 1;
    expect(
      refusedVariables(() =>
        loadSolanaWatcherConfig({ ...production, REFUND_SIGNER_SECRET_KEY: encodeBase58(secret) }),
      ),
    ).toEqual(['REFUND_SIGNER_SECRET_KEY']);
  });

  it('reads fixed rates per token and names a malformed list', () => {
    expect(
      loadSolanaWatcherConfig({ APP_ENV: 'sandbox', FIXED_RATES: 'usdc=0.19, EURC=0.15' }).FIXED_RATES,
    ).toEqual({ usdc: '0.19', eurc: '0.15' });
    expect(() => loadSolanaWatcherConfig({ APP_ENV: 'sandbox', FIXED_RATES: 'usdc=0.19,btc=1' })).toThrow(
      /FIXED_RATES/,
    );
  });
});
