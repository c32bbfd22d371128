import { ConfigError } from '@gateway/config';
import { SANDBOX_RECEIVING_WALLET, loadSolanaWatcherConfig } from '../src/config';

describe('solana-watcher config', () => {
  it('in the sandbox, defaults to the documented dev wallets, the local chain and fixed quotes', () => {
    const config = loadSolanaWatcherConfig({});
    expect(config).toMatchObject({
      APP_ENV: 'sandbox',
      SOLANA_RPC_URL: 'http://127.0.0.1:8899',
      RECEIVING_WALLET: SANDBOX_RECEIVING_WALLET,
      QUOTE_PROVIDER: 'fixed',
      FIXED_RATES: { usdc: '0.18', usdt: '0.18', eurc: '0.16' },
      POLL_INTERVAL_MS: 1000,
      PAYMENT_WINDOW_SECONDS: 1800,
      TOKEN_DECIMALS: 6,
    });
    expect(config.SANDBOX_PAYER_SECRET_KEY).toEqual(expect.any(String));
  });

  it('in production, the receiving wallet is required and there is no sandbox payer', () => {
    expect(() => loadSolanaWatcherConfig({ APP_ENV: 'production' })).toThrow(ConfigError);
    const config = loadSolanaWatcherConfig({
      APP_ENV: 'production',
      RECEIVING_WALLET: SANDBOX_RECEIVING_WALLET,
      SANDBOX_PAYER_SECRET_KEY: 'ignored',
    });
    expect(config.QUOTE_PROVIDER).toBe('live');
    expect(config.SANDBOX_PAYER_SECRET_KEY).toBeUndefined();
  });

  it('reads fixed rates per token and names a malformed list', () => {
    expect(loadSolanaWatcherConfig({ FIXED_RATES: 'usdc=0.19, EURC=0.15' }).FIXED_RATES).toEqual({
      usdc: '0.19',
      eurc: '0.15',
    });
    expect(() => loadSolanaWatcherConfig({ FIXED_RATES: 'usdc=0.19,btc=1' })).toThrow(/FIXED_RATES/);
  });
});
