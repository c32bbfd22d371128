import {
  returnedByOperatorAlready,
  toOperatorReceivedFundsItem,
  whyFundsNotHeld,
  type ReturnElsewhere,
  type StoredReceivedFunds,
} from '../src/domain/funds';

const held = { returnedBy: null, assignedAt: null };
const elsewhere = (overrides: Partial<ReturnElsewhere>): ReturnElsewhere => ({
  returnedBy: null,
  returnedAt: null,
  assignedPaymentId: null,
  assignedAt: null,
  ...overrides,
});

describe("the operator's return asked again", () => {
  test('funds the operator is returning or returned are answered as they stand, through this record or another of the same money', () => {
    expect(returnedByOperatorAlready({ returnedBy: 'operator', assignedAt: null })).toBe(true);
    expect(returnedByOperatorAlready(held, elsewhere({ returnedBy: 'operator' }))).toBe(true);
    expect(
      returnedByOperatorAlready(held, elsewhere({ returnedBy: 'operator', returnedAt: new Date() })),
    ).toBe(true);
  });

  test('held funds are taken, and money taken any other way is refused', () => {
    expect(returnedByOperatorAlready(held)).toBe(false);
    expect(returnedByOperatorAlready({ returnedBy: 'manual', assignedAt: null })).toBe(false);
    expect(returnedByOperatorAlready({ returnedBy: 'ref_aaaaaaaaaaaaaaaaaaaaaaaa', assignedAt: null })).toBe(
      false,
    );
    expect(returnedByOperatorAlready({ returnedBy: null, assignedAt: new Date() })).toBe(false);
    // The same money assigned through another record: the operator decided it is a business's, not returned.
    expect(
      returnedByOperatorAlready(held, elsewhere({ assignedPaymentId: 'pay_x', assignedAt: new Date() })),
    ).toBe(false);
    // A record taken itself answers for itself, whatever another record shows.
    expect(
      returnedByOperatorAlready(
        { returnedBy: 'manual', assignedAt: null },
        elsewhere({ returnedBy: 'operator' }),
      ),
    ).toBe(false);
  });

  test('the reason of a refusal names how the money was taken', () => {
    const funds = { kind: 'unmatched' as const, returnedBy: null, returnedAt: null, assignedPaymentId: null };
    expect(whyFundsNotHeld({ ...funds, assignedPaymentId: 'pay_x' })).toContain(
      'atribuídos ao pagamento pay_x',
    );
    expect(whyFundsNotHeld(funds)).toContain('outro pagamento');
  });

  test("a record of money returned through another record shows that return, its rail's id included; of an unknown payment, no business", () => {
    const stored: StoredReceivedFunds & { paymentId: string } = {
      fundsId: 'fund_b',
      paymentId: 'pay_unknown',
      kind: 'unmatched',
      rail: 'crypto',
      railReference: 'sig',
      instruction: '2',
      amountCentavos: null,
      amountBaseUnits: '700000',
      recordedAt: new Date('2026-11-29T12:00:00Z'),
      returnedBy: null,
      returnedAt: null,
      assignedPaymentId: null,
      assignedAt: null,
      valuedCentavos: null,
      quoteToken: null,
      quoteTokenPerBrl: null,
      quotedAt: null,
      returnReference: null,
    };
    const returnedAt = new Date('2026-11-29T13:00:00Z');
    const item = toOperatorReceivedFundsItem(
      stored,
      null,
      elsewhere({ returnedBy: 'operator', returnedAt, returnReference: 'sigBack' }),
    );
    expect(item).toMatchObject({
      business_id: null,
      status: 'returned',
      returned_by: 'operator',
      returned_at: returnedAt.toISOString(),
      return_reference: 'sigBack',
    });
    // Its own return wins over what another record shows.
    expect(
      toOperatorReceivedFundsItem(
        { ...stored, returnedBy: 'operator', returnReference: 'mine' },
        null,
        elsewhere({ returnReference: 'theirs' }),
      ).return_reference,
    ).toBe('mine');
  });
});
