import { Keypair } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  accountKeys,
  findReferencedTransfers,
  type FetchedTransaction,
  type TransferMatchCriteria,
} from '../src/domain/transfer-validation';
import failedFixture from './fixtures/failed-insufficient-funds.json';
import legacyFixture from './fixtures/legacy-usdc-creates-ata.json';
import token2022Fixture from './fixtures/v0-token-2022.json';
import v0Fixture from './fixtures/v0-usdc.json';

interface Fixture {
  context: { receivingWallet: string; reference: string; mint: string; amountBaseUnits: string };
  response: unknown;
}

function load(fixture: Fixture): { context: Fixture['context']; tx: FetchedTransaction } {
  return { context: fixture.context, tx: structuredClone(fixture.response) as FetchedTransaction };
}

function criteria(context: Fixture['context'], acceptedMints: [string, string][]): TransferMatchCriteria {
  return {
    receivingWallet: context.receivingWallet,
    acceptedMints: new Map(acceptedMints),
    openReferences: new Set([context.reference]),
  };
}

describe('findReferencedTransfers', () => {
  it.each([
    ['a legacy transaction that also creates the receiving token account', legacyFixture],
    ['a v0 transaction', v0Fixture],
  ])('reports the exact amount received for %s', (_name, fixture: Fixture) => {
    const { context, tx } = load(fixture);
    const transfers = findReferencedTransfers(tx, criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]));
    expect(transfers).toEqual([
      {
        kind: 'received',
        reference: context.reference,
        signature: tx.transaction.signatures[0],
        slot: tx.slot,
        blockTime: tx.blockTime,
        mint: context.mint,
        tokenProgram: TOKEN_PROGRAM_ID,
        amount: BigInt(context.amountBaseUnits),
        // The buyer's wallet signs as fee payer and owns the token account it pays from.
        sourceOwner: accountKeys(tx)[0],
      },
    ]);
  });

  it('accepts a Token-2022 transfer when that mint is accepted under Token-2022', () => {
    const { context, tx } = load(token2022Fixture);
    const [transfer] = findReferencedTransfers(
      tx,
      criteria(context, [[context.mint, TOKEN_2022_PROGRAM_ID]]),
    );
    expect(transfer).toMatchObject({ kind: 'received', tokenProgram: TOKEN_2022_PROGRAM_ID });
    expect(transfer?.amount).toBe(BigInt(context.amountBaseUnits));
  });

  it('flags a transfer of a mint that is not accepted as wrong_mint', () => {
    const { context, tx } = load(legacyFixture);
    const otherMint = Keypair.generate().publicKey.toBase58();
    const [transfer] = findReferencedTransfers(tx, criteria(context, [[otherMint, TOKEN_PROGRAM_ID]]));
    expect(transfer).toMatchObject({
      kind: 'wrong_mint',
      mint: context.mint,
      amount: BigInt(context.amountBaseUnits),
    });
  });

  it('flags an accepted mint arriving under the other token program as wrong_mint', () => {
    const { context, tx } = load(token2022Fixture);
    const [transfer] = findReferencedTransfers(tx, criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]));
    expect(transfer?.kind).toBe('wrong_mint');
  });

  it('skips a failed transaction', () => {
    const { context, tx } = load(failedFixture);
    expect(tx.meta?.err).not.toBeNull();
    expect(findReferencedTransfers(tx, criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]))).toEqual([]);
  });

  it('ignores references that are not open', () => {
    const { context, tx } = load(v0Fixture);
    const closed = {
      ...criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]),
      openReferences: new Set<string>(),
    };
    expect(findReferencedTransfers(tx, closed)).toEqual([]);
  });

  it('ignores a transfer to a wallet other than the receiving one', () => {
    const { context, tx } = load(v0Fixture);
    const elsewhere = { ...context, receivingWallet: Keypair.generate().publicKey.toBase58() };
    expect(findReferencedTransfers(tx, criteria(elsewhere, [[context.mint, TOKEN_PROGRAM_ID]]))).toEqual([]);
  });

  it('finds a reference loaded from an address lookup table', () => {
    const { context, tx } = load(v0Fixture);
    const message = tx.transaction.message as { accountKeys: string[] };
    // The reference is a read-only non-signer, so it compiles last; loaded read-only keys keep that index.
    expect(message.accountKeys[message.accountKeys.length - 1]).toBe(context.reference);
    message.accountKeys.pop();
    tx.meta!.loadedAddresses = { writable: [], readonly: [context.reference] };
    const [transfer] = findReferencedTransfers(tx, criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]));
    expect(transfer?.amount).toBe(BigInt(context.amountBaseUnits));
  });
});
