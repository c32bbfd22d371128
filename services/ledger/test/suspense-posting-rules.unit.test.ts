import {
  fundsReturned,
  newPublicId,
  type DisputeEventPayload,
  type FundsReceived,
  type FundsReturned,
} from '@gateway/contracts';
import {
  closedDisputeContradiction,
  creditedBusiness,
  disputeClosedPosting,
  disputeOpenedPosting,
  fundsReceivedPosting,
  fundsReturnedPosting,
  journalSum,
  suspenseCreditPosting,
  type OpenedDispute,
  type Posting,
  type SettlementDelays,
} from '../src/domain/posting-rules';

const received = (overrides: Partial<FundsReceived> = {}): FundsReceived => ({
  event_id: newPublicId('evt'),
  occurred_at: '2026-11-29T12:00:00.000Z',
  funds_id: 'fund_aaaaaaaaaaaaaaaaaaaaaaaa',
  money_key: 'funds:fund_aaaaaaaaaaaaaaaaaaaaaaaa',
  kind: 'late',
  rail: 'pix',
  payment_id: 'pay_aaaaaaaaaaaaaaaaaaaaaaaa',
  business_id: 'biz_aaaaaaaaaaaaaaaaaaaaaaaa',
  amount_centavos: 1_000,
  amount_base_units: null,
  token: null,
  rail_reference: 'E00000000202611291200aaaaaaaaaaa',
  ...overrides,
});
const out = (event: FundsReceived): Omit<FundsReturned, 'returned_by'> & { business_id: string } => ({
  event_id: newPublicId('evt'),
  occurred_at: '2026-11-29T13:00:00.000Z',
  funds_id: event.funds_id,
  money_key: event.money_key,
  rail: event.rail,
  payment_id: event.payment_id,
  business_id: event.business_id!,
});
const dispute = (status: 'open' | 'won' | 'lost'): DisputeEventPayload => ({
  event_id: newPublicId('evt'),
  business_id: 'biz_aaaaaaaaaaaaaaaaaaaaaaaa',
  occurred_at: '2026-11-29T14:00:00.000Z',
  dispute: {
    dispute_id: 'dsp_aaaaaaaaaaaaaaaaaaaaaaaa',
    payment_id: 'pay_aaaaaaaaaaaaaaaaaaaaaaaa',
    business_id: 'biz_aaaaaaaaaaaaaaaaaaaaaaaa',
    method: 'pix',
    amount_centavos: 3_000,
    status,
    reason: null,
    created_at: '2026-11-29T14:00:00.000Z',
    updated_at: '2026-11-29T14:00:00.000Z',
  },
});
/** The dispute as its opening posted it. */
const openedDispute: OpenedDispute = {
  businessId: 'biz_aaaaaaaaaaaaaaaaaaaaaaaa',
  paymentId: 'pay_aaaaaaaaaaaaaaaaaaaaaaaa',
  amountCentavos: 3_000,
};
const delays: SettlementDelays = { pix: 86_400, crypto: 3_600 };
/** What a posting changes of the business's four balances equals the net of its balance transaction (or 0). */
const balanced = (posting: Posting) =>
  posting.deltas.available + posting.deltas.pending + posting.deltas.reserved + posting.deltas.blocked ===
  (posting.balanceTransaction?.netCentavos ?? 0);

describe('posting rules of suspense and disputes', () => {
  test('money in with no payment to credit: holding debited, suspense credited, keyed by the money', () => {
    expect(fundsReceivedPosting(received())).toEqual({
      causeKey: 'funds:received:funds:fund_aaaaaaaaaaaaaaaaaaaaaaaa',
      kind: 'funds_received',
      businessId: null,
      // The Pix's endToEndId: what reconciliation finds the money under at the PSP.
      railReference: 'E00000000202611291200aaaaaaaaaaa',
      lines: [
        { account: 'cash_psp', businessId: null, amountCentavos: 1_000 },
        { account: 'suspense', businessId: null, amountCentavos: -1_000 },
      ],
    });
    const crypto = fundsReceivedPosting(
      received({
        rail: 'crypto',
        token: 'eurc',
        money_key: 'crypto:sig:2',
        amount_base_units: '5',
        rail_reference: 'sig',
      }),
    );
    // A token line counts its base units, for the wallet's balance on chain.
    expect(crypto?.lines[0]).toEqual({
      account: 'tokens:eurc',
      businessId: null,
      amountCentavos: 1_000,
      quantityBaseUnits: '5',
    });
    expect(crypto?.railReference).toBe('sig');
    // An event written before the reference was announced: booked, naming nothing.
    expect(fundsReceivedPosting(received({ rail_reference: undefined }))?.railReference).toBeNull();
    expect(crypto?.causeKey).toBe('funds:received:crypto:sig:2');
    expect(fundsReceivedPosting(received({ rail: 'crypto', amount_centavos: null }))).toBeNull();
  });

  test('returned by a refund leaves the holding account; by the business itself, it is owed to it', () => {
    const event = received();
    const held = { amountCentavos: 1_000, holdingAccount: 'cash_psp' as const };
    const byRefund = fundsReturnedPosting(
      { ...out(event), returned_by: 'ref_aaaaaaaaaaaaaaaaaaaaaaaa', rail_reference: 'D-ref-1' },
      held,
      delays,
    );
    expect(byRefund.lines).toEqual([
      { account: 'suspense', businessId: null, amountCentavos: 1_000 },
      { account: 'cash_psp', businessId: null, amountCentavos: -1_000 },
    ]);
    expect(byRefund.businessId).toBeNull();
    // The devolução the money left under, beside the refund's own journal.
    expect(byRefund.railReference).toBe('D-ref-1');
    // Tokens returned by a refund leave the token account with the base units booked in.
    const tokensBack = fundsReturnedPosting(
      {
        ...out(event),
        rail: 'crypto',
        returned_by: 'ref_aaaaaaaaaaaaaaaaaaaaaaaa',
        rail_reference: 'sigBack',
      },
      { amountCentavos: 1_000, holdingAccount: 'tokens:usdc', amountBaseUnits: '2500000' },
      delays,
    );
    expect(tokensBack.lines[1]).toEqual({
      account: 'tokens:usdc',
      businessId: null,
      amountCentavos: -1_000,
      quantityBaseUnits: '-2500000',
    });
    const byHand = fundsReturnedPosting(
      { ...out(event), returned_by: 'manual', fee_centavos: 60 },
      held,
      delays,
    ) as Posting;
    // Credited as a payment of its rail: the net pending, the fee the platform's.
    expect(byHand.lines).toEqual([
      { account: 'suspense', businessId: null, amountCentavos: 1_000 },
      { account: 'pending', businessId: event.business_id, amountCentavos: -940 },
      { account: 'fee_revenue', businessId: null, amountCentavos: -60 },
    ]);
    expect(byHand.deltas).toEqual({ available: 0, pending: 940, reserved: 0, blocked: 0 });
    expect(byHand.balanceTransaction).toMatchObject({
      type: 'adjustment',
      sourceId: event.funds_id,
      amountCentavos: 1_000,
      feeCentavos: 60,
      netCentavos: 940,
      status: 'pending',
      availableOn: new Date('2026-11-30T13:00:00.000Z'),
    });
    expect(byHand.settlement).toEqual({
      paymentId: event.funds_id,
      businessId: event.business_id,
      netCentavos: 940,
      availableOn: new Date('2026-11-30T13:00:00.000Z'),
      holdingAccount: 'cash_psp',
    });
    expect(balanced(byHand)).toBe(true);
    // One way out per sum of money: a return and an assignment share the key.
    expect(byRefund.causeKey).toBe(byHand.causeKey);
  });

  test("money naming a payment the gateway does not know, returned by the operator: out of the holding, no business's balance moved", () => {
    const event = received({ kind: 'unmatched', business_id: null });
    const returned: FundsReturned = {
      ...out(event),
      business_id: null,
      returned_by: 'operator',
      rail_reference: 'D-operator-1',
    };
    expect(creditedBusiness(returned)).toBeNull();
    const posting = fundsReturnedPosting(
      returned,
      { amountCentavos: 1_000, holdingAccount: 'cash_psp' },
      delays,
    );
    expect(posting).toEqual({
      causeKey: 'funds:out:funds:fund_aaaaaaaaaaaaaaaaaaaaaaaa',
      kind: 'funds_returned',
      businessId: null,
      railReference: 'D-operator-1',
      lines: [
        { account: 'suspense', businessId: null, amountCentavos: 1_000 },
        { account: 'cash_psp', businessId: null, amountCentavos: -1_000 },
      ],
    });
    expect('balanceTransaction' in posting).toBe(false);
    // A known payment's business on an operator return is not credited either.
    expect(creditedBusiness({ ...returned, business_id: 'biz_aaaaaaaaaaaaaaaaaaaaaaaa' })).toBeNull();
  });

  test('a credit out of suspense always names its business: the contract refuses a return by hand without one, old events stay valid', () => {
    const event = received();
    const byHand = { ...out(event), returned_by: 'manual', fee_centavos: 10 };
    expect(creditedBusiness(byHand)).toBe(event.business_id);
    expect(() => creditedBusiness({ ...byHand, business_id: null })).toThrow(/no business/);
    expect(() =>
      fundsReturnedPosting(
        { ...byHand, business_id: null },
        { amountCentavos: 1_000, holdingAccount: 'cash_psp' },
        delays,
      ),
    ).toThrow(/no business/);
    const validate = (payload: unknown) => fundsReturned.schema.validate(payload).error?.message ?? null;
    expect(validate({ ...byHand, business_id: null })).toMatch(/business_id/);
    expect(validate({ ...byHand, business_id: undefined })).toMatch(/business_id/);
    expect(validate(byHand)).toBeNull();
    // Through a rail: null when no business is concerned; an event written before (with its business) still valid.
    expect(
      validate({ ...out(event), business_id: null, returned_by: 'operator', rail_reference: 'D-1' }),
    ).toBeNull();
    expect(validate({ ...out(event), returned_by: 'operator', rail_reference: 'D-1' })).toBeNull();
    expect(validate({ ...out(event), returned_by: 'ref_aaaaaaaaaaaaaaaaaaaaaaaa' })).toBeNull();
    expect(validate({ ...out(event), business_id: undefined, returned_by: 'operator' })).toMatch(
      /business_id/,
    );
  });

  test('assigned: the value booked, less the fee, pending under the rail settlement delay', () => {
    const event = received({ rail: 'crypto' });
    const posting = suspenseCreditPosting(
      { ...out(event), business_id: 'biz_bbbbbbbbbbbbbbbbbbbbbbbb', fee_centavos: 7 },
      { amountCentavos: 777, holdingAccount: 'tokens:usdc' },
      delays,
    );
    expect(posting.causeKey).toBe('funds:out:funds:fund_aaaaaaaaaaaaaaaaaaaaaaaa');
    expect(posting.kind).toBe('funds_assigned');
    expect(posting.deltas).toEqual({ available: 0, pending: 770, reserved: 0, blocked: 0 });
    expect(posting.balanceTransaction).toMatchObject({
      type: 'adjustment',
      amountCentavos: 777,
      feeCentavos: 7,
      netCentavos: 770,
      status: 'pending',
      availableOn: new Date('2026-11-29T14:00:00.000Z'),
    });
    expect(journalSum(posting.lines)).toBe(0);
    expect(balanced(posting)).toBe(true);
  });

  test('a fee above the value is clamped to it; an event without a fee (older) charges none, still pending', () => {
    const event = received();
    const held = { amountCentavos: 50, holdingAccount: 'cash_psp' as const };
    const allFee = suspenseCreditPosting({ ...out(event), fee_centavos: 80 }, held, delays);
    expect(allFee.lines).toEqual([
      { account: 'suspense', businessId: null, amountCentavos: 50 },
      { account: 'fee_revenue', businessId: null, amountCentavos: -50 },
    ]);
    expect(allFee.balanceTransaction).toMatchObject({ amountCentavos: 50, feeCentavos: 50, netCentavos: 0 });
    const older = suspenseCreditPosting(out(event), held, delays);
    expect(older.deltas).toEqual({ available: 0, pending: 50, reserved: 0, blocked: 0 });
    expect(older.balanceTransaction).toMatchObject({ feeCentavos: 0, status: 'pending' });
  });

  test('a dispute: opened blocks from available, won releases, lost leaves to the PSP account', () => {
    const opened = disputeOpenedPosting(dispute('open'));
    expect(opened.deltas).toEqual({ available: -3_000, pending: 0, reserved: 0, blocked: 3_000 });
    expect(opened.balanceTransaction).toBeNull();
    expect(balanced(opened)).toBe(true);

    const won = disputeClosedPosting(dispute('won'), openedDispute);
    expect(won.deltas).toEqual({ available: 3_000, pending: 0, reserved: 0, blocked: -3_000 });
    expect(won.balanceTransaction).toMatchObject({ type: 'dispute_won', amountCentavos: 0, netCentavos: 0 });
    expect(balanced(won)).toBe(true);

    const lost = disputeClosedPosting(dispute('lost'), openedDispute);
    expect(lost.lines).toEqual([
      { account: 'blocked', businessId: 'biz_aaaaaaaaaaaaaaaaaaaaaaaa', amountCentavos: 3_000 },
      { account: 'cash_psp', businessId: null, amountCentavos: -3_000 },
    ]);
    expect(lost.balanceTransaction).toMatchObject({
      type: 'dispute',
      amountCentavos: -3_000,
      netCentavos: -3_000,
    });
    expect(balanced(lost)).toBe(true);
    // Closed once, won or lost.
    expect(won.causeKey).toBe(lost.causeKey);
  });

  test("a dispute's closing moves what its opening blocked, of the business it blocked; one naming anything else contradicts it", () => {
    const won = dispute('won');
    expect(closedDisputeContradiction(won, openedDispute)).toBeNull();
    const elsewhere = 'biz_bbbbbbbbbbbbbbbbbbbbbbbb';
    const contradictions = [
      { ...won, business_id: elsewhere },
      { ...won, dispute: { ...won.dispute, business_id: elsewhere } },
      { ...won, business_id: elsewhere, dispute: { ...won.dispute, business_id: elsewhere } },
      { ...won, dispute: { ...won.dispute, payment_id: 'pay_bbbbbbbbbbbbbbbbbbbbbbbb' } },
      { ...won, dispute: { ...won.dispute, amount_centavos: 2_999 } },
    ].map((event) => closedDisputeContradiction(event, openedDispute));
    expect(contradictions).toEqual([
      expect.stringMatching(/another business than its opening$/),
      expect.stringMatching(/another business than its opening$/),
      expect.stringMatching(/another business than its opening$/),
      expect.stringMatching(/another payment than its opening$/),
      expect.stringMatching(/another amount than its opening$/),
    ]);

    // The posting itself never reads the business, payment or amount the event names.
    const forged = { ...won, business_id: elsewhere, dispute: { ...won.dispute, business_id: elsewhere } };
    const posted = disputeClosedPosting(forged, openedDispute);
    expect(posted.businessId).toBe(openedDispute.businessId);
    expect(posted.lines.map((line) => line.businessId)).toEqual([
      openedDispute.businessId,
      openedDispute.businessId,
    ]);
  });
});
