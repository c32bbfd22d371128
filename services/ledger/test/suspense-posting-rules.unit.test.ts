import { newPublicId, type DisputeEventPayload, type FundsReceived } from '@gateway/contracts';
import {
  disputeClosedPosting,
  disputeOpenedPosting,
  fundsAssignedPosting,
  fundsReceivedPosting,
  fundsReturnedPosting,
  journalSum,
  type Posting,
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
const out = (event: FundsReceived) => ({
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
    );
    expect(tokensBack.lines[1]).toEqual({
      account: 'tokens:usdc',
      businessId: null,
      amountCentavos: -1_000,
      quantityBaseUnits: '-2500000',
    });
    const byHand = fundsReturnedPosting({ ...out(event), returned_by: 'manual' }, held) as Posting;
    expect(byHand.lines).toEqual([
      { account: 'suspense', businessId: null, amountCentavos: 1_000 },
      { account: 'available', businessId: event.business_id, amountCentavos: -1_000 },
    ]);
    expect(byHand.balanceTransaction).toMatchObject({
      type: 'adjustment',
      sourceId: event.funds_id,
      netCentavos: 1_000,
    });
    expect(balanced(byHand)).toBe(true);
    // One way out per sum of money: a return and an assignment share the key.
    expect(byRefund.causeKey).toBe(byHand.causeKey);
  });

  test('assigned: suspense to the business available at the value booked, an adjustment, no fee', () => {
    const event = received();
    const posting = fundsAssignedPosting(
      { ...out(event), business_id: 'biz_bbbbbbbbbbbbbbbbbbbbbbbb' },
      { amountCentavos: 777, holdingAccount: 'cash_psp' },
    );
    expect(posting.causeKey).toBe('funds:out:funds:fund_aaaaaaaaaaaaaaaaaaaaaaaa');
    expect(posting.deltas).toEqual({ available: 777, pending: 0, reserved: 0, blocked: 0 });
    expect(posting.balanceTransaction).toMatchObject({
      type: 'adjustment',
      amountCentavos: 777,
      feeCentavos: 0,
      netCentavos: 777,
      status: 'available',
    });
    expect(journalSum(posting.lines)).toBe(0);
    expect(balanced(posting)).toBe(true);
  });

  test('a dispute: opened blocks from available, won releases, lost leaves to the PSP account', () => {
    const opened = disputeOpenedPosting(dispute('open'));
    expect(opened.deltas).toEqual({ available: -3_000, pending: 0, reserved: 0, blocked: 3_000 });
    expect(opened.balanceTransaction).toBeNull();
    expect(balanced(opened)).toBe(true);

    const won = disputeClosedPosting(dispute('won'), 3_000);
    expect(won.deltas).toEqual({ available: 3_000, pending: 0, reserved: 0, blocked: -3_000 });
    expect(won.balanceTransaction).toMatchObject({ type: 'dispute_won', amountCentavos: 0, netCentavos: 0 });
    expect(balanced(won)).toBe(true);

    const lost = disputeClosedPosting(dispute('lost'), 3_000);
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
});
