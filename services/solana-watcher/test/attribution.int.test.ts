import { TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { Keypair } from '@solana/web3.js';
import { cryptoRequestSettled } from '@gateway/contracts';
import { waitFor } from '@gateway/testkit';
import { HandMadeTransfers, price } from './support/hand-made-transfers';
import { UnappliedTransfers } from './support/unapplied-transfers';
import { WatcherHarness, withToken2022Eurc } from './support/watcher';

/**
 * Transactions written by hand (not by our sandbox wallet), paying into the receiving wallet the way an attacker or an
 * unusual wallet could: each SPL transfer instruction counts for the one payment whose reference it names, with its
 * own amount.
 */
describe('money attributed per transfer instruction', () => {
  const eurc = Keypair.generate().publicKey;
  const harness = WatcherHarness.forTheseTests(withToken2022Eurc(eurc));
  const unapplied = UnappliedTransfers.forTheseTests(harness);

  const { transferTo, send, recorded } = new HandMadeTransfers(harness);

  test("one TransferChecked naming two businesses' references pays neither; both keep it as unmatched", async () => {
    const a = await harness.open({ business_name: 'Loja A' });
    const b = await harness.open({ business_name: 'Loja B' });
    const amount = price(a) > price(b) ? price(a) : price(b);
    const signature = await send(transferTo([a, b], amount));

    expect(await recorded(signature, 1)).toEqual([
      { instruction: '0', reference: expect.any(String), applied_to: 'ambiguous', amount: amount.toString() },
    ]);
    // The row commits with everything the transaction did to the requests and the events it emitted.
    for (const request of [a, b]) {
      expect(await harness.emitted(cryptoRequestSettled.name, request.payment_id)).toBe(0);
      expect(await harness.request(request.reference)).toMatchObject({
        status: 'open',
        received_base_units: '0',
      });
      expect(await unapplied.first(request.payment_id)).toMatchObject({
        reference: request.reference,
        signature,
        amount_base_units: amount.toString(),
        reason: 'ambiguous',
      });
    }
  });

  test('the full price for A and 1 base unit for B in one transaction pays A only; B has 1 base unit', async () => {
    const a = await harness.open();
    const b = await harness.open();
    const signature = await send(transferTo([a], price(a)), transferTo([b], 1n));

    expect(await recorded(signature, 2)).toEqual([
      { instruction: '0', reference: a.reference, applied_to: 'payment', amount: price(a).toString() },
      { instruction: '1', reference: b.reference, applied_to: 'payment', amount: '1' },
    ]);
    expect((await harness.settled(a.payment_id)).payload).toMatchObject({
      signature,
      excess_base_units: '0',
    });
    expect(await harness.emitted(cryptoRequestSettled.name, b.payment_id)).toBe(0);
    expect(await harness.request(b.reference)).toMatchObject({ status: 'open', received_base_units: '1' });
  });

  test('two instructions each paying its own reference in full pay both payments', async () => {
    const a = await harness.open();
    const b = await harness.open({ amount_centavos: 25_000 });
    const signature = await send(transferTo([a], price(a)), transferTo([b], price(b)));

    for (const request of [a, b])
      expect((await harness.settled(request.payment_id)).payload).toMatchObject({
        signature,
        received_base_units: price(request).toString(),
        excess_base_units: '0',
      });
  });

  test('a plain Transfer (not TransferChecked) pays with its own amount', async () => {
    const request = await harness.open();
    const signature = await send(transferTo([request], price(request), { checked: false }));
    expect((await harness.settled(request.payment_id)).payload).toMatchObject({ signature });
  });

  test.each([
    ['TransferChecked', true],
    ['Transfer', false],
  ])('a Token-2022 %s pays the request in that token', async (_name, checked) => {
    const request = await harness.open({ token: 'eurc' });
    const signature = await send(
      transferTo([request], price(request), { checked, mint: eurc, program: TOKEN_2022_PROGRAM_ID }),
    );
    expect((await harness.settled(request.payment_id)).payload).toMatchObject({ signature });
    expect(await recorded(signature, 1)).toEqual([
      expect.objectContaining({ reference: request.reference, applied_to: 'payment' }),
    ]);
  });

  test('two late instructions of one transaction for one payment are each reported with their own amount, once', async () => {
    const request = await harness.open();
    expect((await harness.simulate(request.payment_id, 'expired')).ok).toBe(true);
    const signature = await send(transferTo([request], 700_000n), transferTo([request], 300_001n));

    expect(await recorded(signature, 2)).toEqual([
      { instruction: '0', reference: request.reference, applied_to: 'late', amount: '700000' },
      { instruction: '1', reference: request.reference, applied_to: 'late', amount: '300001' },
    ]);
    const reported = () =>
      unapplied
        .of(request.payment_id)
        .map(({ instruction, amount_base_units, reason }) => ({ instruction, amount_base_units, reason }));
    await waitFor(() => reported().length >= 2 || undefined, { what: 'both late instructions reported' });
    expect(reported()).toEqual(
      expect.arrayContaining([
        { instruction: '0', amount_base_units: '700000', reason: 'after_expiry' },
        { instruction: '1', amount_base_units: '300001', reason: 'after_expiry' },
      ]),
    );
    // Scanning the chain again reports neither a second time.
    await harness.rescanFromScratch();
    expect(reported()).toHaveLength(2);
  });

  test('the database refuses a second record of one instruction of one signature', async () => {
    const a = await harness.open();
    const b = await harness.open();
    const signature = await send(transferTo([a], 1n));
    await recorded(signature, 1);
    await expect(
      harness.service.dataSource.query(
        `INSERT INTO transfers (signature, instruction, reference, payment_id, amount, mint, slot, applied_to)
         VALUES ($1, '0', $2, $3, 1, 'm', 1, 'payment')`,
        [signature, b.reference, b.payment_id],
      ),
    ).rejects.toThrow(/duplicate key/);
  });

  test('a transaction recorded whole before instructions were keyed is not counted again when read again', async () => {
    const request = await harness.open();
    const signature = await send(transferTo([request], 1n));
    await recorded(signature, 1);
    const insertAgain = (instruction: string) =>
      harness.service.dataSource.query(
        `INSERT INTO transfers (signature, instruction, reference, payment_id, amount, mint, slot, applied_to)
         VALUES ($1, $2, $3, $4, 1, 'm', 1, 'payment') ON CONFLICT DO NOTHING RETURNING signature`,
        [signature, instruction, request.reference, request.payment_id],
      ) as Promise<unknown[]>;
    // As the migration leaves a row of before: one per (signature, reference), counted whole.
    await harness.service.dataSource.query(
      `UPDATE transfers SET instruction = 'ref:' || reference WHERE signature = $1`,
      [signature],
    );
    expect(await insertAgain('0')).toEqual([]);
    expect(await insertAgain('1.0')).toEqual([]);
    const rows = (await harness.service.dataSource.query(
      'SELECT instruction FROM transfers WHERE signature = $1',
      [signature],
    )) as Array<{ instruction: string }>;
    expect(rows).toEqual([{ instruction: `ref:${request.reference}` }]);
  });
});
