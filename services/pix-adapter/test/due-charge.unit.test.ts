import fc from 'fast-check';
import { dayNumber, saoPauloDay, saoPauloMidnight, type AmountParts, type PixDue } from '@gateway/contracts';
import {
  cobvCalendarioOf,
  cobvValorOf,
  componentesOf,
  endOfPayableWindow,
  isBusinessDay,
  judgeDuePix,
  lastPayingDay,
  partBounds,
  payableWindow,
} from '../src/domain/due-charge';
import { effectOfReceivedDuePix } from '../src/domain/received-pix';

// 2027-02-10 is a Wednesday; Carnival 2027 is 8 and 9 February (Easter 28 March).
const due = (overrides: Partial<PixDue> = {}): PixDue => ({ date: '2027-02-10', ...overrides });
const day = (date: string) => dayNumber(date)!;
const parts = (overrides: Partial<AmountParts> = {}): AmountParts => ({
  original: 45_000,
  fine: 0,
  interest: 0,
  reduction: 0,
  discount: 0,
  ...overrides,
});

describe('pix.due as an API Pix cobv', () => {
  it('states the due date and the days after it (30 when not given, as API Pix)', () => {
    expect(cobvCalendarioOf(due())).toEqual({ dataDeVencimento: '2027-02-10', validadeAposVencimento: 30 });
    expect(cobvCalendarioOf(due({ payable_days_after: 0 }))).toEqual({
      dataDeVencimento: '2027-02-10',
      validadeAposVencimento: 0,
    });
  });

  it('maps the ADR example to one modalidade per rule, percentages with two decimals', () => {
    const valor = cobvValorOf(
      due({
        fine: { percent_bps: 200 },
        interest: { percent_bps: 100, per: 'month', days: 'calendar' },
        reduction: { amount: 1000 },
        discount: { until: [{ date: '2027-02-05', amount: 2000 }] },
      }),
      45_000,
    );
    expect(valor).toEqual({
      original: '450.00',
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 3, valorPerc: '1.00' },
      abatimento: { modalidade: 1, valorPerc: '10.00' },
      desconto: { modalidade: 1, descontoDataFixa: [{ data: '2027-02-05', valorPerc: '20.00' }] },
    });
  });

  it.each([
    [{ amount: 150 }, 1],
    [{ amount: 150, days: 'business' }, 5],
    [{ percent_bps: 33, per: 'day' }, 2],
    [{ percent_bps: 33, per: 'month' }, 3],
    [{ percent_bps: 33, per: 'year' }, 4],
    [{ percent_bps: 33, per: 'day', days: 'business' }, 6],
    [{ percent_bps: 33, per: 'month', days: 'business' }, 7],
    [{ percent_bps: 33, per: 'year', days: 'business' }, 8],
  ] as Array<[NonNullable<PixDue['interest']>, number]>)(
    'maps interest %j to juros modalidade %i',
    (interest, modalidade) => {
      expect(cobvValorOf(due({ interest }), 10_000).juros?.modalidade).toBe(modalidade);
    },
  );

  it.each([
    [
      {
        until: [
          { date: '2027-02-01', percent_bps: 500 },
          { date: '2027-02-05', percent_bps: 250 },
        ],
      },
      2,
    ],
    [{ per_day_early: { amount: 10 } }, 3],
    [{ per_day_early: { amount: 10, days: 'business' } }, 4],
    [{ per_day_early: { percent_bps: 10 } }, 5],
    [{ per_day_early: { percent_bps: 10, days: 'business' } }, 6],
  ] as Array<[NonNullable<PixDue['discount']>, number]>)(
    'maps discount %j to desconto modalidade %i',
    (discount, modalidade) => {
      const desconto = cobvValorOf(due({ discount }), 10_000).desconto!;
      expect(desconto.modalidade).toBe(modalidade);
      // A dated discount lists its dates and no valorPerc of its own; a per-day one the reverse (API Pix refuses both).
      expect(desconto.valorPerc === undefined).toBe(modalidade <= 2);
      expect(desconto.descontoDataFixa === undefined).toBe(modalidade > 2);
    },
  );

  it('a fixed fine or reduction is modalidade 1 in reais, a percentage modalidade 2', () => {
    const valor = cobvValorOf(due({ fine: { amount: 5 }, reduction: { percent_bps: 10_000 - 1 } }), 10_000);
    expect(valor.multa).toEqual({ modalidade: 1, valorPerc: '0.05' });
    expect(valor.abatimento).toEqual({ modalidade: 2, valorPerc: '99.99' });
  });
});

describe('the payable window', () => {
  it('moves a due date on a weekend or holiday to the next business day, and its last day too', () => {
    expect(isBusinessDay(day('2027-02-08'))).toBe(false); // Carnival Monday
    // Due on Saturday 6 February 2027: Carnival follows, so it is due on Wednesday the 10th.
    const window = payableWindow(due({ date: '2027-02-06', payable_days_after: 0 }));
    expect(window.dueDay).toBe(day('2027-02-10'));
    expect(window.payableUntil).toBe('2027-02-10');
    // 30 days after 10 February is Friday 12 March.
    expect(payableWindow(due()).payableUntil).toBe('2027-03-12');
    // 3 days after Wednesday 10 March 2027 is Saturday 13 March: payable until Monday 15 March.
    expect(payableWindow(due({ date: '2027-03-10', payable_days_after: 3 })).payableUntil).toBe('2027-03-15');
  });

  it('ends at midnight in São Paulo after the last payable day and the days a municipal holiday may move it', () => {
    // Payable until Wednesday 10 February; a municipal holiday may move it to the 12th: it ends as the 13th begins.
    expect(endOfPayableWindow(due({ payable_days_after: 0 })).toISOString()).toBe('2027-02-13T03:00:00.000Z');
    expect(lastPayingDay(due({ payable_days_after: 0 }))).toBe(day('2027-02-12'));
  });

  it('knows the São Paulo day by its time zone, daylight saving time included (2018)', () => {
    // 4 November 2018 to 16 February 2019 São Paulo kept UTC−02:00: 02:30 UTC on 1 January 2019 is the 1st there.
    expect(saoPauloDay(new Date('2019-01-01T02:30:00Z'))).toBe(day('2019-01-01'));
    expect(saoPauloDay(new Date('2027-01-01T02:30:00Z'))).toBe(day('2026-12-31'));
    expect(saoPauloMidnight(day('2019-01-01')).toISOString()).toBe('2019-01-01T02:00:00.000Z');
    expect(saoPauloMidnight(day('2027-02-13')).toISOString()).toBe('2027-02-13T03:00:00.000Z');
  });
});

describe('the bound of each part of a Pix paying a due-date charge', () => {
  const rules = due({
    fine: { percent_bps: 200 },
    interest: { percent_bps: 100, per: 'month' },
    reduction: { amount: 1000 },
    discount: { until: [{ date: '2027-02-05', amount: 2000 }] },
  });

  it('on the due date: no fine, no interest, no discount past its date, the reduction', () => {
    expect(partBounds(rules, 45_000, day('2027-02-10'))).toEqual(parts({ reduction: 1000, discount: 0 }));
  });

  it('early: the discount of a tier not yet passed; only the tier on the due date moves with it', () => {
    expect(partBounds(rules, 45_000, day('2027-02-01')).discount).toBe(2000);
    expect(partBounds(rules, 45_000, day('2027-02-05')).discount).toBe(2000);
    expect(partBounds(rules, 45_000, day('2027-02-06')).discount).toBe(0);
    const onDueDate = due({ discount: { until: [{ date: '2027-02-10', amount: 2000 }] } });
    expect(partBounds(onDueDate, 45_000, day('2027-02-12')).discount).toBe(2000);
    expect(partBounds(onDueDate, 45_000, day('2027-02-13')).discount).toBe(0);
  });

  it('late: the whole fine and each calendar day of interest, rounded up, no discount', () => {
    // 12 days late: 2 % of 450.00 = 9.00; 1 % a month over 12 days = 450.00 × 0.01 × 12 / 30 = 1.80.
    expect(partBounds(rules, 45_000, day('2027-02-22'))).toEqual(
      parts({ fine: 900, interest: 180, reduction: 1000, discount: 0 }),
    );
  });

  it('interest over business days is bounded at the business-day rate over calendar days', () => {
    const business = due({ interest: { percent_bps: 210, per: 'month', days: 'business' } });
    // 10 calendar days late at 2.1 % a month over 21 business days a month: 1 % of 1000.00 = 10.00.
    expect(partBounds(business, 100_000, day('2027-02-20')).interest).toBe(1000);
  });

  it('per day of anticipation, a discount is bounded by every calendar day up to the due date, under the original', () => {
    const early = due({ discount: { per_day_early: { amount: 100 } } });
    // Paid 2027-02-01: 9 days early, counted to the due date (no room for a municipal holiday before it).
    expect(partBounds(early, 45_000, day('2027-02-01')).discount).toBe(900);
    // After the due date, only in the days a municipal holiday may have moved it to: the days left to them.
    expect(partBounds(early, 45_000, day('2027-02-10')).discount).toBe(0);
    expect(partBounds(early, 45_000, day('2027-02-11')).discount).toBe(100);
    expect(partBounds(early, 45_000, day('2027-02-13')).discount).toBe(0);
    expect(
      partBounds(due({ discount: { per_day_early: { amount: 10_000 } } }), 5000, day('2027-01-01')).discount,
    ).toBe(4999);
  });

  it('is never below what a PSP charges under the same rules, whatever its rounding and base (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 10_000_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 60 }),
        (amount, fineBps, interestBps, daysLate) => {
          const rules2 = due({
            fine: { percent_bps: fineBps },
            interest: { percent_bps: interestBps, per: 'month', days: 'business' },
          });
          const { dueDay } = payableWindow(rules2);
          const bound = partBounds(rules2, amount, dueDay + daysLate);
          // A PSP: half-up rounding, interest over business days only (never more than calendar days) at a 21st.
          let businessDays = 0;
          for (let d = dueDay + 1; d <= dueDay + daysLate; d += 1) if (isBusinessDay(d)) businessDays += 1;
          const pspInterest = Math.round((amount * interestBps * businessDays) / (10_000 * 21));
          const pspFine = daysLate > 0 ? Math.round((amount * fineBps) / 10_000) : 0;
          expect(bound.interest).toBeGreaterThanOrEqual(pspInterest);
          expect(bound.fine).toBeGreaterThanOrEqual(pspFine);
        },
      ),
    );
  });
});

describe('a Pix into a due-date charge', () => {
  const rules = due({
    fine: { percent_bps: 200 },
    interest: { amount: 15 },
    discount: { per_day_early: { amount: 10 } },
  });

  it('pays it when its parts add up and each is within its bound', () => {
    expect(judgeDuePix(rules, 45_000, 45_000, parts(), day('2027-02-10'))).toEqual({ pays: true });
    // 3 days late: fine 9.00 and 3 × 0.15.
    expect(judgeDuePix(rules, 45_000, 45_945, parts({ fine: 900, interest: 45 }), day('2027-02-13'))).toEqual(
      {
        pays: true,
      },
    );
    expect(judgeDuePix(rules, 45_000, 44_910, parts({ discount: 90 }), day('2027-02-01'))).toEqual({
      pays: true,
    });
  });

  it.each([
    ['parts that do not add up to what was paid', 45_001, parts(), day('2027-02-10')],
    ['an original other than the amount', 45_100, parts({ original: 45_100 }), day('2027-02-10')],
    ['a fine on the due date', 45_900, parts({ fine: 900 }), day('2027-02-10')],
    ['a fine over the rule', 46_000, parts({ fine: 1000 }), day('2027-02-11')],
    ['a discount after the due date', 44_990, parts({ discount: 10 }), day('2027-02-20')],
    ['a reduction nobody asked for', 44_000, parts({ reduction: 1000 }), day('2027-02-10')],
  ])('refuses %s', (_name, paid, given, payDay) => {
    expect(judgeDuePix(rules, 45_000, paid, given, payDay).pays).toBe(false);
  });

  it('requires the reduction the rule states, rounded either way, and none without one', () => {
    const reduced = due({ reduction: { amount: 1000 }, fine: { percent_bps: 200 } });
    // 15 days late, the PSP lists only the original: the payer was denied the R$ 10,00 reduction.
    expect(judgeDuePix(reduced, 45_000, 45_000, parts(), day('2027-02-25'))).toEqual({
      pays: false,
      reason: 'reduction under the rule',
    });
    expect(judgeDuePix(reduced, 45_000, 44_000, parts({ reduction: 1000 }), day('2027-02-10')).pays).toBe(
      true,
    );
    // 3.33 % of 450.01 is 14.985333: 14.98 or 14.99.
    const percent = due({ reduction: { percent_bps: 333 } });
    expect(
      judgeDuePix(percent, 45_001, 43_503, parts({ original: 45_001, reduction: 1498 }), day('2027-02-10'))
        .pays,
    ).toBe(true);
    expect(
      judgeDuePix(percent, 45_001, 43_502, parts({ original: 45_001, reduction: 1499 }), day('2027-02-10'))
        .pays,
    ).toBe(true);
    expect(
      judgeDuePix(percent, 45_001, 43_504, parts({ original: 45_001, reduction: 1497 }), day('2027-02-10'))
        .pays,
    ).toBe(false);
  });

  it('refuses a fine with a discount, but in the days a municipal holiday may have moved the due date to', () => {
    const both = due({ fine: { amount: 5000 }, discount: { until: [{ date: '2027-02-10', amount: 5000 }] } });
    // Due 10 February; on the 11th a fine of 50.00 and a discount of 50.00 add up, but are never both due.
    expect(
      judgeDuePix(both, 45_000, 45_000, parts({ fine: 5000, discount: 5000 }), day('2027-02-11')).pays,
    ).toBe(true);
    expect(
      judgeDuePix(both, 45_000, 45_000, parts({ fine: 5000, discount: 5000 }), day('2027-02-10')),
    ).toEqual({
      pays: false,
      reason: 'fine over what the rules allow that day',
    });
    const perDay = due({
      fine: { amount: 5000 },
      discount: { per_day_early: { amount: 100 } },
      interest: { amount: 10 },
    });
    expect(
      judgeDuePix(perDay, 45_000, 45_000, parts({ interest: 100, discount: 100 }), day('2027-02-05')),
    ).toEqual({
      pays: false,
      reason: 'interest over what the rules allow that day',
    });
    expect(
      judgeDuePix(perDay, 45_000, 44_910, parts({ interest: 10, discount: 100 }), day('2027-02-11')).pays,
    ).toBe(true);
  });

  it('judges a Pix paid after the last paying day late, and one dated before the charge was created wrong', () => {
    const window = due({ payable_days_after: 0, interest: { percent_bps: 100, per: 'day' } });
    const charge = {
      status: 'active',
      amountCentavos: 45_000,
      due: window,
      createdAt: new Date('2027-01-05T12:00:00Z'),
    };
    // 100 days late into a charge still active (the PSP was down when its window ended): late funds, not a payment.
    const late = {
      valorCentavos: 90_000,
      parts: parts({ interest: 45_000 }),
      horario: '2027-05-21T12:00:00Z',
    };
    expect(effectOfReceivedDuePix(charge, late, true)).toEqual({
      effect: 'late',
      reason: 'paid after the last payable day',
    });
    // Up to two days after payable_until (a municipal holiday may have moved it) it is still judged.
    const slack = { valorCentavos: 45_900, parts: parts({ interest: 900 }), horario: '2027-02-12T12:00:00Z' };
    expect(effectOfReceivedDuePix(charge, slack, true).effect).toBe('applied');
    expect(effectOfReceivedDuePix(charge, { ...slack, horario: '2027-02-13T12:00:00Z' }, true).effect).toBe(
      'late',
    );
    const early = { valorCentavos: 45_000, parts: parts(), horario: '2027-01-04T12:00:00Z' };
    expect(effectOfReceivedDuePix(charge, early, true)).toEqual({
      effect: 'wrong_amount',
      reason: 'paid before the charge was created',
    });
  });

  it('refuses a Pix without its parts', () => {
    expect(judgeDuePix(rules, 45_000, 45_000, null, day('2027-02-10'))).toEqual({
      pays: false,
      reason: 'no componentesValor',
    });
  });

  it('judges by the day in São Paulo of the Pix, late only into an ended charge', () => {
    const charge = {
      status: 'active',
      amountCentavos: 45_000,
      due: rules,
      createdAt: new Date('2027-01-05T12:00:00Z'),
    };
    // 02:59 UTC on the 11th is still the 10th in São Paulo: no fine may be charged.
    const onDueDay = { valorCentavos: 45_900, parts: parts({ fine: 900 }), horario: '2027-02-11T02:59:00Z' };
    expect(effectOfReceivedDuePix(charge, onDueDay, true).effect).toBe('wrong_amount');
    expect(
      effectOfReceivedDuePix(charge, { ...onDueDay, horario: '2027-02-11T03:00:00Z' }, true).effect,
    ).toBe('applied');
    expect(effectOfReceivedDuePix({ ...charge, status: 'expired' }, onDueDay, true).effect).toBe('late');
    expect(
      effectOfReceivedDuePix(charge, { ...onDueDay, horario: '2027-02-11T03:00:00Z' }, false).effect,
    ).toBe('wrong_amount');
  });
});

describe('componentesValor', () => {
  it('reads the parts API Pix lists, absent ones as zero', () => {
    expect(
      componentesOf({ original: { valor: '450.00' }, multa: { valor: '9.00' }, juros: { valor: '0.45' } }),
    ).toEqual(parts({ fine: 900, interest: 45 }));
  });

  it.each([
    ['absent', undefined],
    ['no original', { multa: { valor: '1.00' } }],
    ['a malformed value', { original: { valor: '450' } }],
    ['a negative value', { original: { valor: '-1.00' } }],
    ['a part a due-date charge has no use for', { original: { valor: '1.00' }, troco: { valor: '1.00' } }],
    ['an inherited name', { original: { valor: '1.00' }, constructor: { valor: '1.00' } }],
    ['an array', [{ valor: '1.00' }]],
  ])('is unreadable with %s', (_name, given) => {
    expect(componentesOf(given)).toBeNull();
  });
});
