import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { recordingLogger, waitFor } from '@gateway/testkit';
import { loadSolanaWatcherConfig } from '../src/config';
import { RefundChain } from '../src/clients/refund-chain';
import type { RefundOrder } from '../src/clients/refund-rail';
import { EnvironmentKeySigner } from '../src/clients/environment-key-signer';
import { openRefundSigner } from '../src/clients/refund-signer';
import { VaultUnavailable } from '../src/clients/vault-transit-signer';
import { encodeBase58 } from '../src/domain/base58';
import type { TransactionSigner } from '../src/domain/transaction-signer';
import { startLocalnet, type Localnet } from './support/localnet';
import { startVaultTransit, type VaultTransitStandIn } from './support/vault-transit';

const quickRetry = { firstDelayMs: 20, maxDelayMs: 100 };

describe('the refund signer REFUND_SIGNER chooses signs refunds the local chain accepts', () => {
  const wallet = Keypair.generate();
  let localnet: Localnet;
  let vault: VaultTransitStandIn;
  beforeAll(async () => {
    localnet = await startLocalnet({ port: 0, receivingWallet: wallet.publicKey });
    localnet.seeder.mintTo(wallet.publicKey, new PublicKey(localnet.mints.USDC), 1_000_000_000n);
    vault = await startVaultTransit({ namespace: 'payments/solana' });
    vault.addKey('receiving-wallet', [wallet]);
  });
  afterAll(async () => {
    await vault.close();
    await localnet.close();
  });

  const keypairFile = (bytes: unknown): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'keypair-')), 'id.json');
    writeFileSync(path, JSON.stringify(bytes));
    return path;
  };
  const vaultEnv = (changes: Record<string, string> = {}) => ({
    REFUND_SIGNER: 'vault-transit',
    VAULT_ADDR: vault.url,
    VAULT_TOKEN: vault.token,
    VAULT_NAMESPACE: vault.namespace!,
    VAULT_TRANSIT_KEY: 'receiving-wallet',
    ...changes,
  });
  const config = (env: Record<string, string>) =>
    loadSolanaWatcherConfig({ APP_ENV: 'sandbox', RECEIVING_WALLET: wallet.publicKey.toBase58(), ...env });
  const order = (): RefundOrder => ({
    refundId: `ref_${encodeBase58(Keypair.generate().publicKey.toBytes()).slice(0, 20)}`,
    mint: localnet.mints.USDC,
    decimals: 6,
    recipients: [{ owner: Keypair.generate().publicKey.toBase58(), amount_base_units: '1500000' }],
    memo: null,
  });

  /** Signs one refund through `signer`, checks the signature, sends it and waits for the chain to confirm it. */
  async function refundLands(signer: TransactionSigner): Promise<void> {
    const chain = new RefundChain(new Connection(localnet.url, 'confirmed'), signer, 1_000_000);
    const refund = order();
    const signed = await chain.signFresh(refund);
    const transaction = VersionedTransaction.deserialize(Buffer.from(signed.transaction, 'base64'));
    expect(transaction.message.staticAccountKeys[0]!.equals(wallet.publicKey)).toBe(true);
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(wallet.publicKey.toBytes()).toString('base64url') },
      format: 'jwk',
    });
    expect(verify(null, transaction.message.serialize(), publicKey, transaction.signatures[0]!)).toBe(true);
    await chain.send(signed.transaction);
    const [status] = await waitFor(
      async () => {
        const statuses = await chain.statuses([signed.signature]);
        return statuses[0]?.confirmationStatus ? statuses : undefined;
      },
      { what: 'the refund confirmed' },
    );
    expect(status!.err).toBeNull();
    const account = getAssociatedTokenAddressSync(
      new PublicKey(refund.mint),
      new PublicKey(refund.recipients[0]!.owner),
    );
    const balance = await new Connection(localnet.url, 'confirmed').getTokenAccountBalance(account);
    expect(balance.value.amount).toBe('1500000');
  }

  test.each([
    ['env', () => ({ REFUND_SIGNER_SECRET_KEY: encodeBase58(wallet.secretKey) })],
    [
      'keypair-file',
      () => ({
        REFUND_SIGNER: 'keypair-file',
        REFUND_SIGNER_KEYPAIR_FILE: keypairFile(Array.from(wallet.secretKey)),
      }),
    ],
    ['vault-transit', () => vaultEnv()],
  ])('%s', async (_kind, env) => {
    const { logger } = recordingLogger('refund-signer');
    const signer = await openRefundSigner(config(env()), logger, quickRetry);
    expect(signer.publicKey).toBe(wallet.publicKey.toBase58());
    await refundLands(signer);
  });

  test('the local chain checks signatures: a transaction signed by another key fails with SignatureFailure', async () => {
    const other = new EnvironmentKeySigner(Keypair.generate().secretKey);
    const impostor: TransactionSigner = {
      publicKey: wallet.publicKey.toBase58(),
      sign: (m) => other.sign(m),
    };
    const chain = new RefundChain(new Connection(localnet.url, 'confirmed'), impostor, 1_000_000);
    const signed = await chain.signFresh(order());
    await chain.send(signed.transaction).catch(() => undefined);
    expect(await chain.statuses([signed.signature])).toEqual([
      expect.objectContaining({ err: 'SignatureFailure' }),
    ]);
  });

  test('Vault is read and asked as documented: token and namespace headers, the key read, its version signed', async () => {
    const from = vault.requests.length;
    const signer = await openRefundSigner(config(vaultEnv()), recordingLogger().logger, quickRetry);
    await signer.sign(new Uint8Array([1, 2, 3]));
    expect(vault.requests.slice(from)).toEqual([
      { method: 'GET', path: 'transit/keys/receiving-wallet', namespace: 'payments/solana', body: undefined },
      {
        method: 'POST',
        path: 'transit/sign/receiving-wallet',
        namespace: 'payments/solana',
        body: { input: 'AQID', key_version: 1 },
      },
    ]);
  });

  test('after a rotation in Vault (its latest version another key) start refuses, naming the key', async () => {
    const rotated = await startVaultTransit();
    rotated.addKey('wallet', [wallet, Keypair.generate()]);
    try {
      const { logger } = recordingLogger();
      const env = vaultEnv({
        VAULT_ADDR: rotated.url,
        VAULT_TOKEN: rotated.token,
        VAULT_TRANSIT_KEY: 'wallet',
      });
      delete (env as Partial<typeof env>).VAULT_NAMESPACE;
      // The latest version is another key: refused at start, naming the key.
      await expect(openRefundSigner(config(env), logger, quickRetry)).rejects.toMatchObject({
        name: 'ConfigError',
        variables: ['VAULT_TRANSIT_KEY'],
      });
    } finally {
      await rotated.close();
    }
  });

  test('Vault unreachable at start: start waits, backing off, until Vault answers', async () => {
    const { logger, lines } = recordingLogger('refund-signer');
    vault.sealed = true;
    const opening = openRefundSigner(config(vaultEnv()), logger, quickRetry);
    let opened = false;
    void opening.then(() => (opened = true));
    await waitFor(
      () => lines.filter((line) => line.msg?.toString().includes('Vault unavailable')).length >= 3,
    );
    expect(opened).toBe(false);
    vault.sealed = false;
    expect((await opening).publicKey).toBe(wallet.publicKey.toBase58());
    expect(JSON.stringify(lines)).not.toContain(vault.token);
  });

  test('Vault refusing the token: start fails at once naming VAULT_TOKEN, the token nowhere in the error', async () => {
    const wrongToken = `hvs.${'x'.repeat(24)}`;
    const failure = await openRefundSigner(
      config(vaultEnv({ VAULT_TOKEN: wrongToken })),
      recordingLogger().logger,
      quickRetry,
    ).catch((err: unknown) => err);
    expect(failure).toMatchObject({ name: 'ConfigError', variables: ['VAULT_TOKEN'] });
    expect(String((failure as Error).message)).toContain('403');
    expect(`${String(failure)} ${inspect(failure)}`).not.toContain(wrongToken);
  });

  test('a key Vault does not have, or a namespace it is not in, is refused at start', async () => {
    await expect(
      openRefundSigner(config(vaultEnv({ VAULT_TRANSIT_KEY: 'nope' })), recordingLogger().logger, quickRetry),
    ).rejects.toMatchObject({ variables: ['VAULT_TRANSIT_KEY'] });
    await expect(
      openRefundSigner(
        config(vaultEnv({ VAULT_NAMESPACE: 'elsewhere' })),
        recordingLogger().logger,
        quickRetry,
      ),
    ).rejects.toMatchObject({ variables: ['VAULT_TOKEN'] });
  });

  test('Vault unreachable while signing: a transient failure (the refund is tried again), token and key never shown', async () => {
    const away = await startVaultTransit();
    away.addKey('wallet', [wallet]);
    const env = vaultEnv({ VAULT_ADDR: away.url, VAULT_TOKEN: away.token, VAULT_TRANSIT_KEY: 'wallet' });
    delete (env as Partial<typeof env>).VAULT_NAMESPACE;
    const signer = await openRefundSigner(config(env), recordingLogger().logger, quickRetry);
    const chain = new RefundChain(new Connection(localnet.url, 'confirmed'), signer, 1_000_000);
    away.sealed = true;
    const sealed = await chain.signFresh(order()).catch((err: unknown) => err);
    await away.close();
    const gone = await chain.signFresh(order()).catch((err: unknown) => err);
    for (const failure of [sealed, gone]) {
      // Not RefundNotBuildable: the refund desk answers SERVICE_UNAVAILABLE and the broker delivers it again.
      expect(failure).toBeInstanceOf(VaultUnavailable);
      const shown = `${String(failure)} ${inspect(failure)} ${inspect(signer)} ${JSON.stringify(signer)}`;
      expect(shown).not.toContain(away.token);
    }
    expect(String(sealed)).toContain('503');
  });
});
