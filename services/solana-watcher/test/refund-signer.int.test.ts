import { Connection, Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { inspect } from 'node:util';
import { recordingLogger } from '@gateway/testkit';
import { EnvironmentKeySigner, SignerKeyInvalid } from '../src/clients/environment-key-signer';
import { RefundChain } from '../src/clients/refund-chain';
import { RefundNotBuildable, type RefundOrder } from '../src/clients/refund-rail';
import { encodeBase58 } from '../src/domain/base58';
import { startLocalnet, type Localnet } from './support/localnet';

/** Every form the secret key (or its seed) could take in a line of text. */
function keyForms(secretKey: Uint8Array): string[] {
  const seed = secretKey.subarray(0, 32);
  return [secretKey, seed].flatMap((bytes) => [
    encodeBase58(bytes),
    Buffer.from(bytes).toString('hex'),
    Buffer.from(bytes).toString('base64'),
    Buffer.from(bytes).toString('base64url'),
    JSON.stringify(Array.from(bytes)),
    Array.from(bytes).join(','),
  ]);
}

function expectNoKeyIn(text: string, secretKey: Uint8Array): void {
  for (const form of keyForms(secretKey)) expect(text).not.toContain(form);
}

describe('the refund signer port and its environment-key adapter', () => {
  const wallet = Keypair.generate();
  let localnet: Localnet;
  beforeAll(async () => {
    localnet = await startLocalnet({ port: 0, receivingWallet: wallet.publicKey });
  });
  afterAll(() => localnet.close());

  const order = (recipients: number): RefundOrder => ({
    refundId: `ref_${encodeBase58(Keypair.generate().publicKey.toBytes()).slice(0, 20)}`,
    mint: localnet.mints.USDC,
    decimals: 6,
    recipients: Array.from({ length: recipients }, () => ({
      owner: Keypair.generate().publicKey.toBase58(),
      amount_base_units: '1',
    })),
    memo: null,
  });

  test('signs refund transactions for the receiving wallet as its key pair would', async () => {
    const signer = new EnvironmentKeySigner(wallet.secretKey);
    expect(signer.publicKey).toBe(wallet.publicKey.toBase58());
    const chain = new RefundChain(new Connection(localnet.url, 'confirmed'), signer, 1_000_000);
    const signed = await chain.signFresh(order(1));
    const transaction = VersionedTransaction.deserialize(Buffer.from(signed.transaction, 'base64'));
    const bySigner = transaction.signatures[0]!;
    transaction.sign([wallet]);
    expect(Buffer.from(bySigner)).toEqual(Buffer.from(transaction.signatures[0]!));
    expect(transaction.message.staticAccountKeys[0]!.equals(new PublicKey(signer.publicKey))).toBe(true);
  });

  test('the key never shows when the signer is printed, serialised or logged', () => {
    const signer = new EnvironmentKeySigner(wallet.secretKey);
    const { logger, lines } = recordingLogger('refund-signer');
    logger.info({ signer, detail: { signer } }, 'signer in a log line');
    logger.error({ err: new Error(`failed with ${String(signer)}`) }, 'signer in an error');
    const printed = [
      inspect(signer, { showHidden: true, depth: 10 }),
      JSON.stringify(signer),
      String(signer),
      `${signer}`,
      JSON.stringify(lines),
    ];
    for (const text of printed) expectNoKeyIn(text, wallet.secretKey);
    expect(JSON.stringify(lines)).toContain(wallet.publicKey.toBase58());
  });

  test('a refused key or a refund that cannot be built fails without the key in its error', async () => {
    const tooShort = wallet.secretKey.subarray(0, 40);
    let refused: unknown;
    try {
      new EnvironmentKeySigner(tooShort);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(SignerKeyInvalid);
    expectNoKeyIn(`${String(refused)} ${inspect(refused)}`, wallet.secretKey);
    // A seed followed by another key's public half would sign for a wallet it does not name.
    const mismatched = Uint8Array.from([
      ...wallet.secretKey.subarray(0, 32),
      ...Keypair.generate().publicKey.toBytes(),
    ]);
    expect(() => new EnvironmentKeySigner(mismatched)).toThrow(SignerKeyInvalid);

    const chain = new RefundChain(
      new Connection(localnet.url, 'confirmed'),
      new EnvironmentKeySigner(wallet.secretKey),
      1_000_000,
    );
    // Far more recipients than one transaction can carry.
    const failure = await chain.signFresh(order(40)).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(RefundNotBuildable);
    expectNoKeyIn(`${String(failure)} ${inspect(failure)}`, wallet.secretKey);
  });
});
