import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from '@solana/web3.js';
import { startLocalnet, type Localnet } from '../src';
import { rpc } from './support/rpc';

describe('compute-unit prices and recent prioritization fees, as a real node serves them', () => {
  let localnet: Localnet;
  let connection: Connection;
  beforeEach(async () => {
    localnet = await startLocalnet({ port: 0 });
    connection = new Connection(localnet.url, 'confirmed');
  });
  afterEach(() => localnet.close());

  async function transfer(budget: TransactionInstruction[]): Promise<string> {
    const transaction = new Transaction({
      feePayer: localnet.payer.publicKey,
      ...(await connection.getLatestBlockhash()),
    }).add(
      ...budget,
      SystemProgram.transfer({
        fromPubkey: localnet.payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000,
      }),
    );
    transaction.sign(localnet.payer);
    return connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true });
  }

  it('charges the price times the requested limit on top of the signature fee, and reports the price for its slot', async () => {
    const before = await connection.getBalance(localnet.payer.publicKey);
    const signature = await transfer([
      ComputeBudgetProgram.setComputeUnitLimit({ units: 50_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 30_001 }),
    ]);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    // 30,001 µL × 50,000 CU = 1,500.05 lamports, rounded up.
    expect(landed?.meta?.fee).toBe(5_000 + 1_501);
    expect(before - (await connection.getBalance(localnet.payer.publicKey))).toBe(1_000_000 + 5_000 + 1_501);
    const fees = await connection.getRecentPrioritizationFees({
      lockedWritableAccounts: [localnet.payer.publicKey],
    });
    expect(fees.find((entry) => entry.slot === landed!.slot)?.prioritizationFee).toBe(30_001);
    expect(
      fees.filter((entry) => entry.slot !== landed!.slot).every((entry) => entry.prioritizationFee === 0),
    ).toBe(true);
  });

  it('without SetComputeUnitLimit the price applies to 200,000 units per instruction', async () => {
    const signature = await transfer([ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 10 })]);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.fee).toBe(5_000 + 2);
  });

  it('refuses more than 128 addresses as Agave does', async () => {
    const addresses = Array.from({ length: 129 }, () => Keypair.generate().publicKey.toBase58());
    const answer = await rpc(localnet.url, 'getRecentPrioritizationFees', [addresses]);
    expect(answer.error).toMatchObject({ code: -32602, message: 'Too many inputs provided; max 128' });
  });

  it('under congestion a transaction offering less than the crowd is answered but never lands; one offering enough lands', async () => {
    localnet.setModes({ congestionComputeUnitPrice: 5_000 });
    const fees = await connection.getRecentPrioritizationFees();
    expect(fees.every((entry) => entry.prioritizationFee >= 5_000)).toBe(true);
    const cheap = await transfer([ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 4_999 })]);
    const enough = await transfer([ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 5_000 })]);
    const { value } = await connection.getSignatureStatuses([cheap, enough]);
    expect(value[0]).toBeNull();
    expect(value[1]).toMatchObject({ err: null });
  });
});
