import {
  TOKEN_PROGRAM_ID,
  createTransferCheckedInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import { FORWARDER_PROGRAM_ID, forwarderInstruction, startLocalnet, type Localnet } from '../src';
import { rpc } from './support/rpc';

interface JsonInstruction {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}

interface ParsedInstruction {
  programId: string;
  accounts: string[];
  data: string;
  stackHeight: number | null;
}

interface TransactionAnswer<I> {
  transaction: { message: { accountKeys: (string | { pubkey: string })[]; instructions: I[] } };
  meta: { err: unknown; innerInstructions: { index: number; instructions: I[] }[] };
}

/**
 * The forwarder program deployed on the local chain: a transfer sent through it lands as an inner (CPI) instruction,
 * and getTransaction reports it in `meta.innerInstructions` as a real node does: one entry per top-level instruction
 * that invoked others (`index`), its instructions in invocation order with `stackHeight` 2 (invoked by a top-level
 * one), their accounts indexing the transaction's whole key list.
 */
describe('a transfer made by a program (the forwarder) on the local chain', () => {
  let localnet: Localnet;
  let connection: Connection;
  let mint: PublicKey;
  let source: PublicKey;
  let destination: PublicKey;
  const reference = Keypair.generate().publicKey;

  beforeAll(async () => {
    localnet = await startLocalnet({ port: 0 });
    connection = new Connection(localnet.url, 'confirmed');
    mint = new PublicKey(localnet.mints.USDC);
    source = getAssociatedTokenAddressSync(mint, localnet.payer.publicKey);
    destination = getAssociatedTokenAddressSync(mint, localnet.receivingWallet);
  });
  afterAll(() => localnet.close());

  const send = (...instructions: TransactionInstruction[]) =>
    connection.sendTransaction(new Transaction().add(...instructions), [localnet.payer]);

  /** A TransferChecked (or Transfer) of USDC from the payer to the receiving wallet naming the reference. */
  function transfer(amount: bigint, checked = true): TransactionInstruction {
    const instruction = checked
      ? createTransferCheckedInstruction(source, mint, destination, localnet.payer.publicKey, amount, 6)
      : createTransferInstruction(source, destination, localnet.payer.publicKey, amount);
    instruction.keys.push({ pubkey: reference, isSigner: false, isWritable: false });
    return instruction;
  }

  const balance = () => BigInt(localnet.ledger.tokenBalance(destination.toBase58())!.amount);

  it('is deployed at the id the localnet reports', async () => {
    expect(localnet.forwarderProgram.toBase58()).toBe(FORWARDER_PROGRAM_ID.toBase58());
    const account = await connection.getAccountInfo(localnet.forwarderProgram);
    expect(account?.executable).toBe(true);
  });

  it.each([
    ['TransferChecked', true],
    ['Transfer', false],
  ])(
    'a %s through it moves the tokens; getTransaction (json) lists it as the inner instruction of the top-level one',
    async (_name, checked) => {
      const before = balance();
      const inner = transfer(1_234n, checked);
      const signature = await send(forwarderInstruction(inner));
      expect(balance()).toBe(before + 1_234n);

      const { result } = await rpc(localnet.url, 'getTransaction', [signature, { encoding: 'json' }]);
      const answer = result as TransactionAnswer<JsonInstruction>;
      const keys = answer.transaction.message.accountKeys as string[];
      const indexOf = (key: PublicKey) => keys.indexOf(key.toBase58());
      expect(answer.meta.err).toBeNull();
      expect(answer.transaction.message.instructions).toEqual([
        {
          programIdIndex: indexOf(FORWARDER_PROGRAM_ID),
          accounts: [TOKEN_PROGRAM_ID, ...inner.keys.map((key) => key.pubkey)].map(indexOf),
          data: bs58.encode(inner.data),
          stackHeight: null,
        },
      ]);
      expect(answer.meta.innerInstructions).toEqual([
        {
          index: 0,
          instructions: [
            {
              programIdIndex: indexOf(TOKEN_PROGRAM_ID),
              accounts: inner.keys.map((key) => indexOf(key.pubkey)),
              data: bs58.encode(inner.data),
              stackHeight: 2,
            },
          ],
        },
      ]);
      expect(inner.keys.map((key) => indexOf(key.pubkey))).toContain(indexOf(reference));
    },
  );

  it('getTransaction (jsonParsed) lists it too, with the keys written out', async () => {
    const inner = transfer(42n);
    const signature = await send(transfer(1n), forwarderInstruction(inner));

    const { result } = await rpc(localnet.url, 'getTransaction', [signature, { encoding: 'jsonParsed' }]);
    const answer = result as TransactionAnswer<ParsedInstruction>;
    expect(answer.meta.err).toBeNull();
    expect(answer.transaction.message.instructions[1]).toEqual({
      programId: FORWARDER_PROGRAM_ID.toBase58(),
      accounts: [TOKEN_PROGRAM_ID, ...inner.keys.map((key) => key.pubkey)].map((key) => key.toBase58()),
      data: bs58.encode(inner.data),
      stackHeight: null,
    });
    // The first top-level instruction invoked nothing, so the only entry is the forwarder's (index 1). A real node
    // answers a token instruction parsed (`program`, `parsed`); this chain answers every instruction in the partially
    // decoded form, as a real node does for programs it has no parser for.
    expect(answer.meta.innerInstructions).toEqual([
      {
        index: 1,
        instructions: [
          {
            programId: TOKEN_PROGRAM_ID.toBase58(),
            accounts: inner.keys.map((key) => key.pubkey.toBase58()),
            data: bs58.encode(inner.data),
            stackHeight: 2,
          },
        ],
      },
    ]);
  });

  it('refuses an account given twice, and being given nothing to invoke', async () => {
    const twice = transfer(1n);
    twice.keys.push({ pubkey: reference, isSigner: false, isWritable: false });
    const nothing = forwarderInstruction(transfer(1n));
    nothing.keys = [];
    for (const instruction of [forwarderInstruction(twice), nothing])
      await expect(send(instruction)).rejects.toThrow(/custom program error: 0x1/);
  });
});
