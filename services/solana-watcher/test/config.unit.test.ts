import { Keypair } from '@solana/web3.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  describe('REFUND_SIGNER: which signer signs refunds', () => {
    const directory = mkdtempSync(join(tmpdir(), 'watcher-config-'));
    let files = 0;
    /** A file holding `text`; its path. */
    const file = (text: string): string => {
      const path = join(directory, `keypair-${++files}.json`);
      writeFileSync(path, text);
      return path;
    };
    const keypairFile = (bytes: Uint8Array) => file(JSON.stringify(Array.from(bytes)));
    const { REFUND_SIGNER_SECRET_KEY: _envKey, ...withoutKey } = production;
    const vault = {
      REFUND_SIGNER: 'vault-transit',
      VAULT_ADDR: 'https://vault.internal:8200',
      VAULT_TOKEN: 'hvs.CAESIJ-not-a-real-token-but-a-secret',
      VAULT_TRANSIT_KEY: 'receiving-wallet',
    };
    /** The message of the ConfigError `load` throws. */
    const messageOf = (load: () => unknown): string => {
      try {
        load();
      } catch (err) {
        return String(err);
      }
      throw new Error('loaded');
    };

    it('is env by default, as before: the environment key', () => {
      expect(loadSolanaWatcherConfig(production)).toMatchObject({ REFUND_SIGNER: 'env' });
    });

    it('refuses a signer it does not know', () => {
      expect(
        refusedVariables(() => loadSolanaWatcherConfig({ ...production, REFUND_SIGNER: 'kms' })),
      ).toEqual(['REFUND_SIGNER']);
    });

    it("keypair-file: loads a solana-keygen file of RECEIVING_WALLET's key pair, and needs no key in the environment", () => {
      const path = keypairFile(receivingWallet.secretKey);
      const config = loadSolanaWatcherConfig({
        ...withoutKey,
        REFUND_SIGNER: 'keypair-file',
        REFUND_SIGNER_KEYPAIR_FILE: path,
      });
      expect(config).toMatchObject({ REFUND_SIGNER: 'keypair-file', REFUND_SIGNER_KEYPAIR_FILE: path });
      expect(config.REFUND_SIGNER_SECRET_KEY).toBeUndefined();
      expect(JSON.stringify(config)).not.toContain(encodeBase58(receivingWallet.secretKey));
    });

    it('keypair-file: in production and in the sandbox alike the file is required, no sandbox key taken instead', () => {
      for (const env of [{ ...withoutKey }, { APP_ENV: 'sandbox' }])
        expect(
          refusedVariables(() => loadSolanaWatcherConfig({ ...env, REFUND_SIGNER: 'keypair-file' })),
        ).toEqual(['REFUND_SIGNER_KEYPAIR_FILE']);
    });

    it.each([
      ['a file that cannot be read', () => join(directory, 'absent.json'), /cannot be read \(ENOENT\)/],
      [
        'a file that is not JSON',
        () => file(encodeBase58(receivingWallet.secretKey)),
        /not a Solana keypair/,
      ],
      [
        'an array of 63 numbers',
        () => keypairFile(receivingWallet.secretKey.subarray(0, 63)),
        /not a Solana keypair/,
      ],
      [
        'a number out of byte range',
        () => file(JSON.stringify([...Array.from(receivingWallet.secretKey).slice(0, 63), 256])),
        /not a Solana keypair/,
      ],
      [
        'the key pair of another wallet',
        () => keypairFile(Keypair.generate().secretKey),
        /not the keypair of/,
      ],
      [
        'a key pair whose halves do not match',
        () => {
          const secret = Uint8Array.from(receivingWallet.secretKey);
          secret[63] = secret[63]! ^ 1;
          return keypairFile(secret);
        },
        /not the keypair of/,
      ],
    ])(
      'keypair-file: %s is refused at start, naming the variable and never printing the key',
      (_case, path, reason) => {
        const env = { ...withoutKey, REFUND_SIGNER: 'keypair-file', REFUND_SIGNER_KEYPAIR_FILE: path() };
        expect(refusedVariables(() => loadSolanaWatcherConfig(env))).toEqual(['REFUND_SIGNER_KEYPAIR_FILE']);
        const message = messageOf(() => loadSolanaWatcherConfig(env));
        expect(message).toMatch(reason);
        const seed = receivingWallet.secretKey.subarray(0, 32);
        for (const bytes of [receivingWallet.secretKey, seed])
          for (const form of [
            encodeBase58(bytes),
            Array.from(bytes).join(','),
            Buffer.from(bytes).toString('base64'),
          ])
            expect(message).not.toContain(form);
      },
    );

    it('vault-transit: loads with its address, token and key; the mount defaults to transit, the namespace is optional', () => {
      expect(loadSolanaWatcherConfig({ ...withoutKey, ...vault })).toMatchObject({
        ...vault,
        VAULT_TRANSIT_MOUNT: 'transit',
      });
      expect(
        loadSolanaWatcherConfig({
          ...withoutKey,
          ...vault,
          VAULT_NAMESPACE: 'payments/solana',
          VAULT_TRANSIT_MOUNT: 'solana-transit',
        }),
      ).toMatchObject({ VAULT_NAMESPACE: 'payments/solana', VAULT_TRANSIT_MOUNT: 'solana-transit' });
    });

    it('vault-transit: in production and in the sandbox alike each of its variables is required', () => {
      for (const env of [{ ...withoutKey }, { APP_ENV: 'sandbox' }])
        expect(
          refusedVariables(() => loadSolanaWatcherConfig({ ...env, REFUND_SIGNER: 'vault-transit' })),
        ).toEqual(['VAULT_ADDR', 'VAULT_TOKEN', 'VAULT_TRANSIT_KEY']);
      for (const name of ['VAULT_ADDR', 'VAULT_TOKEN', 'VAULT_TRANSIT_KEY'])
        expect(
          refusedVariables(() => loadSolanaWatcherConfig(without({ ...withoutKey, ...vault }, name))),
        ).toEqual([name]);
    });

    it('vault-transit: a malformed address, key name or mount is refused without printing the token', () => {
      const env = {
        ...withoutKey,
        ...vault,
        VAULT_ADDR: `vault.internal:8200/${vault.VAULT_TOKEN}`,
        VAULT_TRANSIT_KEY: 'a/b',
        VAULT_TRANSIT_MOUNT: '../sys',
      };
      expect(refusedVariables(() => loadSolanaWatcherConfig(env))).toEqual([
        'VAULT_ADDR',
        'VAULT_TRANSIT_KEY',
        'VAULT_TRANSIT_MOUNT',
      ]);
      expect(messageOf(() => loadSolanaWatcherConfig(env))).not.toContain(vault.VAULT_TOKEN);
    });

    it.each(['keypair-file', 'vault-transit'])(
      'with %s, a secret key left in REFUND_SIGNER_SECRET_KEY is refused (blank counts as unset)',
      (kind) => {
        const env = {
          ...production,
          ...(kind === 'vault-transit'
            ? vault
            : { REFUND_SIGNER: kind, REFUND_SIGNER_KEYPAIR_FILE: keypairFile(receivingWallet.secretKey) }),
        };
        expect(refusedVariables(() => loadSolanaWatcherConfig(env))).toEqual(['REFUND_SIGNER_SECRET_KEY']);
        expect(messageOf(() => loadSolanaWatcherConfig(env))).not.toContain(
          production.REFUND_SIGNER_SECRET_KEY,
        );
        expect(
          refusedVariables(() => loadSolanaWatcherConfig({ ...env, REFUND_SIGNER_SECRET_KEY: '' })),
        ).toEqual([]);
      },
    );

    it("with env, the other signers' variables are dropped", () => {
      const config = loadSolanaWatcherConfig({ ...production, ...vault, REFUND_SIGNER: 'env' });
      expect(config).not.toHaveProperty('VAULT_TOKEN');
      expect(config).not.toHaveProperty('VAULT_ADDR');
    });
  });
});
