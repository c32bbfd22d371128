import {
  heldFundsViolations,
  suspenseCreditOf,
  suspenseJournalViolations,
  type HeldFundsRow,
} from '../src/invariants';

/** Received funds as the checks read them: booked in suspense once, still held. */
const held = (over: Partial<HeldFundsRow> = {}): HeldFundsRow => ({
  funds_id: 'fund_1',
  payment_id: 'pay_1',
  returned_by: null,
  returned: false,
  assigned: false,
  money_key: 'pix:e2e1',
  status: 'held',
  amount_centavos: '1000',
  closed_business_id: null,
  received: 1,
  out: 0,
  fee_centavos: null,
  devolucoes: 0,
  ...over,
});

const assigned = (over: Partial<HeldFundsRow> = {}) =>
  held({
    assigned: true,
    status: 'assigned',
    closed_business_id: 'biz_a',
    out: 1,
    fee_centavos: '10',
    ...over,
  });

const returned = (over: Partial<HeldFundsRow> = {}) =>
  held({ returned: true, returned_by: 'operator', status: 'returned', out: 1, devolucoes: 1, ...over });

describe("the fault suite's checks of money in suspense", () => {
  test('one funds:received journal, and a funds:out journal exactly when the money left', () => {
    expect(suspenseJournalViolations(held())).toEqual([]);
    expect(suspenseJournalViolations(assigned())).toEqual([]);
    expect(suspenseJournalViolations(held({ received: 0 }))).toHaveLength(1);
    expect(suspenseJournalViolations(held({ received: 2 }))).toHaveLength(1);
    expect(suspenseJournalViolations(held({ out: 1 }))).toHaveLength(1);
    expect(suspenseJournalViolations(assigned({ out: 0 }))).toHaveLength(1);
    expect(suspenseJournalViolations(returned({ out: 2 }))).toHaveLength(1);
    expect(suspenseJournalViolations(held({ money_key: null, status: null }))).toHaveLength(1);
  });

  test("the operator's return ends returned by the operator everywhere, with one devolução and one journal", () => {
    expect(heldFundsViolations('return', returned())).toEqual([]);
    for (const wrong of [
      held({ returned_by: 'operator' }),
      returned({ devolucoes: 0 }),
      returned({ devolucoes: 2 }),
      returned({ out: 0 }),
      returned({ out: 2 }),
      returned({ status: 'held' }),
      returned({ returned_by: 'manual' }),
      returned({ money_key: null, status: null, out: 0 }),
    ])
      expect(heldFundsViolations('return', wrong)).toHaveLength(1);
  });

  test("the operator's assignment ends assigned everywhere, with one journal", () => {
    expect(heldFundsViolations('assign', assigned())).toEqual([]);
    for (const wrong of [held(), assigned({ out: 0 }), assigned({ out: 2 }), assigned({ status: 'held' })])
      expect(heldFundsViolations('assign', wrong)).toHaveLength(1);
    expect(heldFundsViolations('return', assigned())).toHaveLength(1);
  });

  test('a business is credited what the books closed for it, less the fee; money returned to its payer credits nobody', () => {
    const rows = [
      assigned(),
      assigned({ funds_id: 'fund_2', amount_centavos: '500', fee_centavos: '5' }),
      assigned({ funds_id: 'fund_3', closed_business_id: 'biz_b' }),
      returned({ funds_id: 'fund_4' }),
      held({ funds_id: 'fund_5' }),
    ];
    expect(suspenseCreditOf('biz_a', rows)).toBe(990n + 495n);
    expect(suspenseCreditOf('biz_b', rows)).toBe(990n);
    expect(suspenseCreditOf('biz_c', rows)).toBe(0n);
  });
});
