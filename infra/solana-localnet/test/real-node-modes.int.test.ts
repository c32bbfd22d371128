import { Keypair, PublicKey } from '@solana/web3.js';
import { waitFor } from '@gateway/testkit-core';
import { payTransferRequest, startLocalnet, type Localnet, type RpcModes } from '../src';
import { rpc } from './support/rpc';

describe('local chain behaving like a real node', () => {
  let localnet: Localnet;
  afterEach(() => localnet.close());

  async function start(modes: Partial<RpcModes> = {}): Promise<void> {
    localnet = await startLocalnet({ port: 0, modes });
  }

  async function pay(reference: PublicKey): Promise<string> {
    return payTransferRequest(localnet.url, localnet.payer, {
      recipient: localnet.receivingWallet,
      amountBaseUnits: 1_000n,
      mint: new PublicKey(localnet.mints.USDC),
      reference,
    });
  }

  it('refuses a getSignaturesForAddress limit over 1000 as Agave does, and history below confirmed', async () => {
    await start();
    const address = Keypair.generate().publicKey.toBase58();
    expect((await rpc(localnet.url, 'getSignaturesForAddress', [address, { limit: 1001 }])).error).toEqual({
      code: -32602,
      message: 'Invalid limit; max 1000',
    });
    expect((await rpc(localnet.url, 'getSignaturesForAddress', [address, { limit: 1000 }])).result).toEqual(
      [],
    );
    expect(
      (await rpc(localnet.url, 'getSignaturesForAddress', [address, { commitment: 'processed' }])).error,
    ).toEqual({ code: -32602, message: 'Method does not support commitment below `confirmed`' });
  });

  it('a landed transaction is processed, then confirmed, then finalized, and is served only at what it reached', async () => {
    await start({ confirmedLagMs: 500, finalizedLagMs: 2_000 });
    const reference = Keypair.generate().publicKey;
    const signature = await pay(reference);
    const listed = async (commitment: string) =>
      (await rpc(localnet.url, 'getSignaturesForAddress', [reference.toBase58(), { commitment }])).result as {
        signature: string;
        confirmationStatus: string;
      }[];
    const transaction = async (commitment?: string) =>
      (await rpc(localnet.url, 'getTransaction', [signature, commitment ? { commitment } : {}])).result;

    expect(await listed('confirmed')).toEqual([]);
    expect(await transaction('confirmed')).toBeNull();
    const landedSlot = (await rpc(localnet.url, 'getSlot', [{ commitment: 'processed' }])).result as number;

    await waitFor(async () => (await listed('confirmed')).length === 1, {
      what: 'the transaction confirmed',
    });
    expect(await listed('confirmed')).toEqual([
      expect.objectContaining({ signature, confirmationStatus: 'confirmed' }),
    ]);
    expect(await listed('finalized')).toEqual([]);
    expect(await transaction('confirmed')).toMatchObject({ meta: { err: null } });
    // Agave's default commitment is finalized.
    expect(await transaction()).toBeNull();
    expect((await rpc(localnet.url, 'getSlot', [{ commitment: 'finalized' }])).result).toBeLessThan(
      landedSlot,
    );

    await waitFor(async () => (await listed('finalized')).length === 1, {
      what: 'the transaction finalized',
    });
    expect(await listed('confirmed')).toEqual([
      expect.objectContaining({ signature, confirmationStatus: 'finalized' }),
    ]);
    expect(await transaction()).toMatchObject({ meta: { err: null } });
    expect((await rpc(localnet.url, 'getSlot', [])).result).toBe(landedSlot);
  });

  it('an RPC pool can list a transaction before its getTransaction node serves it', async () => {
    await start({ transactionLagMs: 1_500 });
    const reference = Keypair.generate().publicKey;
    const signature = await pay(reference);
    expect((await rpc(localnet.url, 'getSignaturesForAddress', [reference.toBase58()])).result).toEqual([
      expect.objectContaining({ signature, confirmationStatus: 'finalized' }),
    ]);
    expect((await rpc(localnet.url, 'getTransaction', [signature])).result).toBeNull();
    await waitFor(async () => (await rpc(localnet.url, 'getTransaction', [signature])).result ?? undefined, {
      what: 'the transaction served',
    });
  });

  it('over a method budget it answers 429, with and without Retry-After, and other methods go on', async () => {
    await start({ rateLimit: { windowMs: 2_000, perMethod: { getSlot: 2 }, retryAfter: 'alternate' } });
    expect((await rpc(localnet.url, 'getSlot')).status).toBe(200);
    expect((await rpc(localnet.url, 'getSlot')).status).toBe(200);
    const first = await rpc(localnet.url, 'getSlot');
    const second = await rpc(localnet.url, 'getSlot');
    expect(first).toMatchObject({ status: 429, error: { code: 429 } });
    expect(Number(first.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(first.retryAfter)).toBeLessThanOrEqual(2);
    expect(second).toMatchObject({ status: 429, retryAfter: null });
    expect((await rpc(localnet.url, 'getHealth')).result).toBe('ok');
    expect(localnet.traffic.refused).toBe(2);
    await waitFor(async () => (await rpc(localnet.url, 'getSlot')).status === 200, {
      what: 'the window to free a request',
    });
  });
});
