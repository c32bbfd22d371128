import fc from 'fast-check';
import { brasiliaDay, businessDaysFrom, dayOf, isBusinessDay } from '../src/business-days';
import { type CobvValorRules, abatimentoCentavos, amountDue, payableWindow } from '../src/cobv-amount';

const day = (date: string) => dayOf(date)!;
/** Due Tuesday 2020-10-20 (a business day), payable 4 days after it (API Pix `validadeAposVencimento`, example A). */
const calendar = { dataDeVencimento: '2020-10-20', validadeAposVencimento: 4 };
const hundred = { originalCentavos: 10_000 };
const due = (rules: CobvValorRules, on: string, cal = calendar) => amountDue(cal, rules, day(on));

describe('business days', () => {
  it("knows the national bank holidays, Easter's included, and 20 November from 2024", () => {
    for (const holiday of [
      '2025-03-03',
      '2025-03-04',
      '2025-04-18',
      '2025-06-19',
      '2020-12-25',
      '2021-01-01',
    ])
      expect(isBusinessDay(day(holiday))).toBe(false);
    expect(isBusinessDay(day('2024-11-20'))).toBe(false);
    expect(isBusinessDay(day('2023-11-20'))).toBe(true);
    expect(isBusinessDay(day('2020-10-24'))).toBe(false); // a Saturday
    expect(isBusinessDay(day('2025-03-05'))).toBe(true); // Ash Wednesday: banks open (late)
  });

  it('refuses dates that do not exist and reads the day in Brasília', () => {
    expect(dayOf('2021-02-29')).toBeUndefined();
    expect(dayOf('2020-13-01')).toBeUndefined();
    expect(dayOf('2020-1-01')).toBeUndefined();
    expect(brasiliaDay(new Date('2020-10-21T02:59:59Z'))).toBe(day('2020-10-20'));
    expect(brasiliaDay(new Date('2020-10-21T03:00:00Z'))).toBe(day('2020-10-21'));
  });
});

describe('the payable window (API Pix CobDataDeVencimento, examples A to G)', () => {
  it.each([
    ['A', '2020-10-20', 4, '2020-10-26'],
    ['B', '2020-12-25', 0, '2020-12-28'],
    ['C', '2020-12-25', 1, '2020-12-29'],
    ['D', '2020-12-25', 3, '2020-12-31'],
    ['E', '2020-12-25', 4, '2021-01-04'],
    ['F', '2021-08-27', 5, '2021-09-01'],
    ['G', '2021-08-28', 5, '2021-09-06'],
  ])('example %s: due %s, %i days after: last payable day %s', (_example, vencimento, validade, last) => {
    const window = payableWindow({ dataDeVencimento: vencimento, validadeAposVencimento: validade });
    expect(window.lastDay).toBe(day(last));
    expect(
      amountDue({ dataDeVencimento: vencimento, validadeAposVencimento: validade }, hundred, day(last)),
    ).not.toBe('past_window');
    expect(
      amountDue({ dataDeVencimento: vencimento, validadeAposVencimento: validade }, hundred, day(last) + 1),
    ).toBe('past_window');
  });
});

describe('the amount due on a day', () => {
  it('is the original on the due date and before it, without rules', () => {
    expect(due(hundred, '2020-10-20')).toEqual({
      original: 10_000,
      multa: 0,
      juros: 0,
      abatimento: 0,
      desconto: 0,
      final: 10_000,
    });
    expect(due(hundred, '2020-10-01')).toMatchObject({ final: 10_000 });
  });

  it("follows the document's own example: R$100.00 two days late, fine 3%, interest 1% a day, is R$105.00", () => {
    const rules = {
      ...hundred,
      multa: { modalidade: 2, valorPerc: '3.00' },
      juros: { modalidade: 2, valorPerc: '1.00' },
    };
    expect(due(rules, '2020-10-22')).toMatchObject({ multa: 300, juros: 200, final: 10_500 });
    // On the due date, nothing is added.
    expect(due(rules, '2020-10-20')).toMatchObject({ multa: 0, juros: 0, final: 10_000 });
  });

  it('charges a fixed fine once, whatever the days late', () => {
    const rules = { ...hundred, multa: { modalidade: 1, valorPerc: '2.50' } };
    expect(due(rules, '2020-10-21')).toMatchObject({ multa: 250, final: 10_250 });
    expect(due(rules, '2020-10-26')).toMatchObject({ multa: 250, final: 10_250 });
  });

  it('rounds half up, once per component, never per day', () => {
    // 0.50% of R$1.00 is half a centavo: one centavo.
    expect(
      due({ originalCentavos: 100, multa: { modalidade: 2, valorPerc: '0.50' } }, '2020-10-21'),
    ).toMatchObject({ multa: 1, final: 101 });
    // 1% a month over 2 calendar days on R$100.00 is 6.67 centavos: 7 (per day it would be 3 + 3).
    expect(due({ ...hundred, juros: { modalidade: 3, valorPerc: '1.00' } }, '2020-10-22')).toMatchObject({
      juros: 7,
    });
  });

  it.each([
    // modalidade, valorPerc, original, paid on, juros in centavos
    [1, '0.50', 10_000, '2020-10-22', 100], // R$0.50 per calendar day, 2 days
    [2, '1.00', 10_000, '2020-10-26', 600], // 1% per calendar day, 6 days
    [3, '1.00', 10_000, '2020-10-22', 7], // 1% a month / 30 x 2 days = 6.67
    [4, '12.00', 100_000, '2020-10-22', 66], // 12% a year / 365 x 2 days on R$1000 = 65.75
    [5, '0.50', 10_000, '2020-10-26', 200], // R$0.50 per business day: 21, 22, 23, 26
    [6, '1.00', 10_000, '2020-10-26', 400], // 1% per business day, 4 days
    [7, '2.10', 10_000, '2020-10-26', 40], // 2.1% a month / 21 x 4 business days
    [8, '25.20', 100_000, '2020-10-26', 400], // 25.2% a year / 252 x 4 business days on R$1000
  ])(
    'interest modalidade %i at %s on %i centavos, paid %s: %i centavos',
    (modalidade, valorPerc, original, on, juros) => {
      const result = due({ originalCentavos: original, juros: { modalidade, valorPerc } }, on);
      expect(result).toMatchObject({ juros, final: original + juros });
    },
  );

  it('grants an abatimento on any day, and fines and interest fall on what is left', () => {
    const fixed = { ...hundred, abatimento: { modalidade: 1, valorPerc: '10.00' } };
    expect(due(fixed, '2020-10-01')).toMatchObject({ abatimento: 1_000, final: 9_000 });
    const percent = {
      ...hundred,
      abatimento: { modalidade: 2, valorPerc: '10.00' },
      multa: { modalidade: 2, valorPerc: '2.00' },
    };
    expect(due(percent, '2020-10-21')).toMatchObject({ abatimento: 1_000, multa: 180, final: 9_180 });
  });

  it('gives the fixed-date discount of the tier the payment date is in, up to its date inclusive', () => {
    const rules = {
      ...hundred,
      desconto: {
        modalidade: 1,
        descontoDataFixa: [
          { data: '2020-10-15', valorPerc: '5.00' },
          { data: '2020-10-10', valorPerc: '10.00' },
        ],
      },
    };
    expect(due(rules, '2020-10-05')).toMatchObject({ desconto: 1_000, final: 9_000 });
    expect(due(rules, '2020-10-10')).toMatchObject({ desconto: 1_000 });
    expect(due(rules, '2020-10-11')).toMatchObject({ desconto: 500, final: 9_500 });
    expect(due(rules, '2020-10-16')).toMatchObject({ desconto: 0, final: 10_000 });
    const percent = {
      ...hundred,
      desconto: { modalidade: 2, descontoDataFixa: [{ data: '2020-10-15', valorPerc: '5.00' }] },
    };
    expect(due(percent, '2020-10-15')).toMatchObject({ desconto: 500 });
  });

  it.each([
    [3, '0.10', '2020-10-15', 50], // R$0.10 per calendar day early: 15..19, 5 days
    [4, '0.10', '2020-10-16', 20], // R$0.10 per business day early: 16 and 19
    [5, '0.10', '2020-10-15', 50], // 0.1% per calendar day, 5 days
    [6, '0.10', '2020-10-16', 20], // 0.1% per business day, 2 days
    [3, '0.10', '2020-10-20', 0], // none on the due date
  ])(
    'anticipation discount modalidade %i at %s paid %s: %i centavos',
    (modalidade, valorPerc, on, desconto) => {
      expect(due({ ...hundred, desconto: { modalidade, valorPerc } }, on)).toMatchObject({
        desconto,
        final: 10_000 - desconto,
      });
    },
  );

  it('never discounts the amount to zero, and never discounts a late payment', () => {
    expect(due({ ...hundred, desconto: { modalidade: 3, valorPerc: '50.00' } }, '2020-10-15')).toMatchObject({
      desconto: 9_999,
      final: 1,
    });
    expect(due({ ...hundred, desconto: { modalidade: 3, valorPerc: '1.00' } }, '2020-10-21')).toMatchObject({
      desconto: 0,
      final: 10_000,
    });
  });

  it('takes the moved due date for every rule: no fine on the business day after a holiday due date', () => {
    const christmas = { dataDeVencimento: '2020-12-25', validadeAposVencimento: 3 };
    const rules = {
      ...hundred,
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 1, valorPerc: '0.10' },
    };
    expect(due(rules, '2020-12-28', christmas)).toMatchObject({ multa: 0, juros: 0, final: 10_000 });
    expect(due(rules, '2020-12-29', christmas)).toMatchObject({ multa: 200, juros: 10, final: 10_210 });
    expect(due(rules, '2021-01-01', christmas)).toBe('past_window');
  });
});

describe('what the review of the first version found', () => {
  it('counts business days a week at a time exactly as day by day, across holidays and years', () => {
    const oneByOne = (from: number, to: number) => {
      let count = 0;
      for (let d = from; d < to; d++) if (isBusinessDay(d)) count += 1;
      return count;
    };
    const start = day('2019-12-20');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: -5, max: 800 }), (offset, span) => {
        expect(businessDaysFrom(start + offset, start + offset + span)).toBe(
          oneByOne(start + offset, start + offset + span),
        );
      }),
      { numRuns: 300 },
    );
    // 2025: 261 weekdays, 9 national bank holidays on weekdays (1 Jan, 3 and 4 Mar, 18 and 21 Apr, 1 May, 19 Jun,
    // 20 Nov, 25 Dec; 7 Sep, 12 Oct and 2 Nov are Sundays, 15 Nov a Saturday): 252 business days.
    expect(businessDaysFrom(day('2025-01-01'), day('2026-01-01'))).toBe(252);
  });

  it('rounds a percentage abatimento as it is charged (99.5 % of R$ 1,00 is the whole original, refused when made)', () => {
    expect(
      abatimentoCentavos({ originalCentavos: 100, abatimento: { modalidade: 2, valorPerc: '99.50' } }),
    ).toBe(100);
    expect(
      abatimentoCentavos({ originalCentavos: 100, abatimento: { modalidade: 2, valorPerc: '99.40' } }),
    ).toBe(99);
    // With one centavo left, a discount takes nothing more, and never less than nothing.
    const rules = {
      originalCentavos: 100,
      abatimento: { modalidade: 2, valorPerc: '99.40' },
      desconto: { modalidade: 3, valorPerc: '5.00' },
    };
    expect(due(rules, '2020-10-15')).toEqual({
      original: 100,
      multa: 0,
      juros: 0,
      abatimento: 99,
      desconto: 0,
      final: 1,
    });
  });

  it('takes abatimento and discount together: the discount falls on what is left after the abatimento', () => {
    // R$ 100,00, R$ 10,00 off always, 5 % off until the due date: R$ 90,00 less R$ 4,50.
    const rules = {
      ...hundred,
      abatimento: { modalidade: 1, valorPerc: '10.00' },
      desconto: { modalidade: 2, descontoDataFixa: [{ data: '2020-10-20', valorPerc: '5.00' }] },
    };
    expect(due(rules, '2020-10-20')).toEqual({
      original: 10_000,
      multa: 0,
      juros: 0,
      abatimento: 1_000,
      desconto: 450,
      final: 8_550,
    });
  });

  it('moves a discount date that is the due date with it, when the due date falls on a weekend', () => {
    // Due Saturday 2021-08-28, so payable without a fine until Monday 2021-08-30; R$ 5,00 off "until the due date".
    const saturday = { dataDeVencimento: '2021-08-28', validadeAposVencimento: 5 };
    const rules = {
      ...hundred,
      multa: { modalidade: 1, valorPerc: '2.00' },
      desconto: {
        modalidade: 1,
        descontoDataFixa: [
          { data: '2021-08-21', valorPerc: '8.00' },
          { data: '2021-08-28', valorPerc: '5.00' },
        ],
      },
    };
    expect(due(rules, '2021-08-30', saturday)).toMatchObject({ multa: 0, desconto: 500, final: 9_500 });
    // A discount date that is not the due date is taken as written: paid on Saturday the 21st, the larger discount.
    expect(due(rules, '2021-08-21', saturday)).toMatchObject({ desconto: 800, final: 9_200 });
    expect(due(rules, '2021-08-23', saturday)).toMatchObject({ desconto: 500, final: 9_500 });
    expect(due(rules, '2021-08-31', saturday)).toMatchObject({ multa: 200, desconto: 0, final: 10_200 });
  });
});
