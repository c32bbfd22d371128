import { TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { Keypair } from '@solana/web3.js';
import { cryptoRequestSettled } from '@gateway/contracts';
import { HandMadeTransfers, price } from './support/hand-made-transfers';
import { UnappliedTransfers } from './support/unapplied-transfers';
import { WatcherHarness, withToken2022Eurc } from './support/watcher';

/**
 * Transfers a program makes (inner, CPI instructions), on the local chain: the localnet's forwarder program invokes
 * the token program with a transfer naming our references, as a wallet's or an exchange's program would. Each counts
 * as a top-level one does: for the one payment whose reference it names, with its own amount.
 */
describe('money attributed per inner (CPI) transfer instruction', () => {
  const eurc = Keypair.generate().publicKey;
  const harness = WatcherHarness.forTheseTests(withToken2022Eurc(eurc));
  const unapplied = UnappliedTransfers.forTheseTests(harness);
  const { transferTo, byProgram, send, recorded } = new HandMadeTransfers(harness);

  test("an inner TransferChecked of a payment's full price pays it, credited with the instruction's own amount", async () => {
    const request = await harness.open();
    // More arrives in the same transaction, into the same account, naming no reference: not the payment's money.
    const signature = await send(byProgram(transferTo([request], price(request))), transferTo([], 500_000n));

    expect(await recorded(signature, 1)).toEqual([
      {
        instruction: '0.0',
        reference: request.reference,
        applied_to: 'payment',
        amount: price(request).toString(),
      },
    ]);
    expect((await harness.settled(request.payment_id)).payload).toMatchObject({
      signature,
      received_base_units: price(request).toString(),
      excess_base_units: '0',
    });
  });

  test('a top-level transfer naming A and an inner transfer naming B pay both, each its own amount', async () => {
    const a = await harness.open();
    const b = await harness.open({ amount_centavos: 25_000 });
    const signature = await send(transferTo([a], price(a)), byProgram(transferTo([b], price(b))));

    expect(await recorded(signature, 2)).toEqual([
      { instruction: '0', reference: a.reference, applied_to: 'payment', amount: price(a).toString() },
      { instruction: '1.0', reference: b.reference, applied_to: 'payment', amount: price(b).toString() },
    ]);
    for (const request of [a, b])
      expect((await harness.settled(request.payment_id)).payload).toMatchObject({
        signature,
        received_base_units: price(request).toString(),
        excess_base_units: '0',
      });
  });

  test("an inner TransferChecked naming two businesses' references pays neither; both keep it as unmatched", async () => {
    const a = await harness.open({ business_name: 'Loja A' });
    const b = await harness.open({ business_name: 'Loja B' });
    const amount = price(a) > price(b) ? price(a) : price(b);
    const signature = await send(byProgram(transferTo([a, b], amount)));

    expect(await recorded(signature, 1)).toEqual([
      {
        instruction: '0.0',
        reference: expect.any(String),
        applied_to: 'ambiguous',
        amount: amount.toString(),
      },
    ]);
    for (const request of [a, b]) {
      expect(await harness.emitted(cryptoRequestSettled.name, request.payment_id)).toBe(0);
      expect(await harness.request(request.reference)).toMatchObject({
        status: 'open',
        received_base_units: '0',
      });
      expect(await unapplied.first(request.payment_id)).toMatchObject({
        reference: request.reference,
        signature,
        instruction: '0.0',
        amount_base_units: amount.toString(),
        reason: 'ambiguous',
      });
    }
  });

  test.each([
    ['an SPL Token Transfer', { checked: false }, 'usdc'],
    ['a Token-2022 TransferChecked', { checked: true, mint: eurc, program: TOKEN_2022_PROGRAM_ID }, 'eurc'],
    ['a Token-2022 Transfer', { checked: false, mint: eurc, program: TOKEN_2022_PROGRAM_ID }, 'eurc'],
  ] as const)('%s made by a program pays the request in that token', async (_name, options, token) => {
    const request = await harness.open({ token });
    const signature = await send(byProgram(transferTo([request], price(request), options)));

    expect(await recorded(signature, 1)).toEqual([
      {
        instruction: '0.0',
        reference: request.reference,
        applied_to: 'payment',
        amount: price(request).toString(),
      },
    ]);
    expect((await harness.settled(request.payment_id)).payload).toMatchObject({ signature });
  });
});
