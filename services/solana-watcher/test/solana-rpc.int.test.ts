import type { RequestListener } from 'node:http';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { readTransaction } from '../src/clients/signature-scanner';
import { SolanaRpc } from '../src/clients/solana-rpc';
import {
  accountKeys,
  findTransferInstructions,
  TOKEN_PROGRAM_ID,
  type TransferMatchCriteria,
} from '../src/domain/transfer-validation';
import { ONE_ATTEMPT, whileServing } from './support/http-server';
import { payTransferRequest, startLocalnet, type Localnet } from './support/localnet';

type Answer = { result?: unknown; error?: unknown };

/**
 * An HTTP server in front of the local chain that hands each JSON-RPC answer to `alter` before sending it on: a node
 * answering in a shape of its own, built from real answers.
 */
function alteringNode(
  localnet: Localnet,
  alter: (method: string, answer: Answer) => unknown,
): RequestListener {
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const { method } = JSON.parse(body) as { method: string };
      void fetch(localnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then((answer) => answer.json() as Promise<Answer>)
        .then((answer) => {
          const altered = alter(method, answer);
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(typeof altered === 'string' ? altered : JSON.stringify(altered));
        });
    });
  };
}

describe("the watcher's Solana RPC client reads what web3.js reads, and refuses what it cannot read", () => {
  let localnet: Localnet;
  let web3: Connection;
  let rpc: SolanaRpc;
  const paid: { signature: string; reference: PublicKey }[] = [];

  beforeAll(async () => {
    localnet = await startLocalnet({ port: 0 });
    web3 = new Connection(localnet.url, 'confirmed');
    rpc = new SolanaRpc(localnet.url, ONE_ATTEMPT);
    for (const version of ['legacy', 0] as const) {
      const reference = Keypair.generate().publicKey;
      const signature = await payTransferRequest(localnet.url, localnet.payer, {
        recipient: localnet.receivingWallet,
        amountBaseUnits: 1_234_567n,
        mint: new PublicKey(localnet.mints.USDC),
        reference,
        memo: `rpc_${version}`,
        version,
      });
      paid.push({ signature, reference });
    }
  });

  afterAll(() => localnet?.close());

  const criteria = (): TransferMatchCriteria => ({
    receivingWallet: localnet.receivingWallet.toBase58(),
    acceptedMints: new Map([[localnet.mints.USDC, TOKEN_PROGRAM_ID]]),
    knownReferences: new Set(paid.map(({ reference }) => reference.toBase58())),
  });

  test('a legacy and a v0 transfer: the same keys and the same transfers as from web3.js', async () => {
    for (const { signature, reference } of paid) {
      const ours = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
      const theirs = await web3.getTransaction(signature, {
        maxSupportedTransactionVersion: 0,
        commitment: 'confirmed',
      });
      expect(ours).not.toBeNull();
      expect(accountKeys(ours!)).toEqual(accountKeys(theirs!));
      const found = findTransferInstructions(ours!, criteria());
      expect(found).toEqual(findTransferInstructions(theirs!, criteria()));
      expect(found).toMatchObject([
        { kind: 'received', amount: 1_234_567n, references: [reference.toBase58()] },
      ]);
    }
    const unknown = paid[0]!.signature.replace(/.$/, (last) => (last === '1' ? '2' : '1'));
    expect(await rpc.getTransaction(unknown, { maxSupportedTransactionVersion: 0 })).toBeNull();
  });

  test('listings, slots, accounts and balances: what web3.js reads of the same chain', async () => {
    const wallet = localnet.receivingWallet;
    const usdc = new PublicKey(localnet.mints.USDC);
    const account = getAssociatedTokenAddressSync(usdc, wallet);
    const listed = await rpc.getSignaturesForAddress(account.toBase58(), { limit: 10 }, 'confirmed');
    const theirs = await web3.getSignaturesForAddress(account, { limit: 10 }, 'confirmed');
    expect(listed).toEqual(
      theirs.map(({ signature, slot, err, blockTime, confirmationStatus }) => ({
        signature,
        slot,
        err,
        blockTime,
        confirmationStatus,
      })),
    );
    expect(listed.map((entry) => entry.signature)).toEqual(
      expect.arrayContaining(paid.map((one) => one.signature)),
    );
    const [before, until] = [listed[0]!.signature, listed[listed.length - 1]!.signature];
    expect(await rpc.getSignaturesForAddress(account.toBase58(), { before, until })).toEqual(
      listed.slice(1, -1),
    );

    const slotBefore = await web3.getSlot('finalized');
    const slot = await rpc.getSlot('finalized');
    expect(slot).toBeGreaterThanOrEqual(slotBefore);
    expect(slot).toBeLessThanOrEqual(await web3.getSlot('finalized'));
    const owners = await rpc.getMultipleAccounts([usdc.toBase58(), Keypair.generate().publicKey.toBase58()]);
    expect(owners).toEqual([{ owner: (await web3.getAccountInfo(usdc))!.owner.toBase58() }, null]);
    expect(await rpc.getTokenAccountsByOwner(wallet.toBase58(), usdc.toBase58())).toEqual(
      (await web3.getTokenAccountsByOwner(wallet, { mint: usdc })).value.map(({ pubkey }) =>
        pubkey.toBase58(),
      ),
    );
    const { value } = await web3.getTokenAccountBalance(account);
    expect(await rpc.getTokenAccountBalance(account.toBase58())).toEqual({
      amount: value.amount,
      decimals: value.decimals,
    });
    expect(await rpc.getBalance(wallet.toBase58())).toBe(await web3.getBalance(wallet));
  });

  /** Each change to a real answer, and the field the refusal names. */
  const misshapen: [string, (result: Record<string, any>) => void, RegExp][] = [
    ['a key not a string', (tx) => (tx.transaction.message.accountKeys[1] = 7), /accountKeys/],
    ['no key list', (tx) => delete tx.transaction.message.accountKeys, /accountKeys/],
    [
      'instruction data not base58',
      (tx) => (tx.transaction.message.instructions[0].data = '0OIl'),
      /instructions/,
    ],
    [
      'a negative account index',
      (tx) => (tx.transaction.message.instructions[0].accounts[0] = -1),
      /instructions/,
    ],
    [
      'an account index past its keys',
      (tx) => tx.transaction.message.instructions[0].accounts.push(tx.transaction.message.accountKeys.length),
      /instructions/,
    ],
    [
      'a token balance of an account past its keys',
      (tx) => (tx.meta.postTokenBalances[0].accountIndex = 999),
      /postTokenBalances/,
    ],
    [
      'a lookup table named but its keys not loaded',
      (tx) =>
        (tx.transaction.message.addressTableLookups = [
          { accountKey: tx.transaction.message.accountKeys[0], writableIndexes: [0], readonlyIndexes: [] },
        ]),
      /loadedAddresses/,
    ],
    [
      'an amount in another notation',
      (tx) => (tx.meta.postTokenBalances[0].uiTokenAmount.amount = '1e6'),
      /post/,
    ],
    [
      'no token balances although it succeeded',
      (tx) => (tx.meta.postTokenBalances = null),
      /postTokenBalances/,
    ],
    [
      'no inner instructions although it succeeded (a node not recording them)',
      (tx) => (tx.meta.innerInstructions = null),
      /innerInstructions.*extended-tx-metadata-storage/,
    ],
    [
      "one instruction's inner instructions listed twice",
      (tx) => (tx.meta.innerInstructions = [0, 0].map((index) => ({ index, instructions: [] }))),
      /innerInstructions: an instruction twice/,
    ],
    [
      "an account's token balance listed twice",
      (tx) => tx.meta.postTokenBalances.push({ ...tx.meta.postTokenBalances[0] }),
      /postTokenBalances: an account twice/,
    ],
    ['a status neither null nor an error', (tx) => (tx.meta.err = false), /meta.err/],
    ['no status in its metadata', (tx) => delete tx.meta.err, /meta/],
    [
      'another transaction than the one asked for',
      (tx) => (tx.transaction.signatures = ['1'.repeat(64)]),
      /asked/,
    ],
    [
      'a loaded key not a string',
      (tx) => (tx.meta.loadedAddresses = { writable: [1], readonly: [] }),
      /loaded/,
    ],
    ['a slot as text', (tx) => (tx.slot = String(tx.slot)), /slot/],
  ];

  test.each(misshapen)(
    'an answer with %s is unreadable, with why, never read in part',
    async (_, change, why) => {
      const { signature } = paid[1]!;
      const alter = (method: string, answer: Answer) => {
        if (method === 'getTransaction' && answer.result) change(answer.result as Record<string, any>);
        return answer;
      };
      await whileServing(alteringNode(localnet, alter), async (url) => {
        const read = await readTransaction(new SolanaRpc(url, ONE_ATTEMPT), signature);
        expect(read).toEqual({ unreadable: expect.stringMatching(why) });
      });
    },
  );

  test('what a real node may also answer is read as the same transfers: an owner not shown before, no block time, fields unknown here', async () => {
    const { signature } = paid[1]!;
    const plain = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const alter = (method: string, answer: Answer) => {
      if (method !== 'getTransaction' || !answer.result) return answer;
      const tx = answer.result as Record<string, any>;
      tx.blockTime = null;
      tx.meta.preTokenBalances.forEach((balance: Record<string, unknown>) => delete balance.owner);
      tx.transaction.message.instructions.forEach((one: Record<string, unknown>) => (one.stackHeight = null));
      tx.transaction.message.staticAccountKeys = [];
      tx.meta.computeUnitsConsumed = 1;
      return answer;
    };
    await whileServing(alteringNode(localnet, alter), async (url) => {
      const read = await new SolanaRpc(url, ONE_ATTEMPT).getTransaction(signature, {
        maxSupportedTransactionVersion: 0,
      });
      expect(read!.blockTime).toBeNull();
      // Only the checked fields are kept: a key list it did not check is never read instead of the one it did.
      expect(read!.transaction.message).not.toHaveProperty('staticAccountKeys');
      const found = findTransferInstructions(read!, criteria());
      const before = findTransferInstructions(plain!, criteria());
      expect(found).toEqual(before.map((one) => ({ ...one, blockTime: null })));
      expect(found).toHaveLength(1);
    });
  });

  test("a version the node will not serve is unreadable; the node's other errors and a body not JSON fail the call", async () => {
    const { signature } = paid[0]!;
    const answers: Record<string, unknown> = {
      version: {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32015, message: 'Transaction version (1) is not supported' },
      },
      behind: { jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'Node is behind by 42 slots' } },
      garbage: '<html>bad gateway</html>',
      neither: { jsonrpc: '2.0', id: 1 },
    };
    for (const [name, answer] of Object.entries(answers)) {
      await whileServing(
        alteringNode(localnet, () => answer),
        async (url) => {
          const reading = readTransaction(new SolanaRpc(url, ONE_ATTEMPT), signature);
          if (name === 'version')
            await expect(reading).resolves.toEqual({ unreadable: expect.stringMatching(/version/) });
          else await expect(reading).rejects.toThrow(/getTransaction/);
        },
      );
    }
  });
});
