import { dayNumber, pixDueProblems, pixDueSchema, saoPauloDay, type PixDue } from '../src';

const today = dayNumber('2027-01-15')!;
const valid = (due: unknown) => pixDueSchema.validate(due, { convert: false, abortEarly: false }).error;

describe('pix.due as POST /v1/payments takes it', () => {
  it('takes the ADR example, and every rule in each of its forms', () => {
    expect(
      valid({
        date: '2027-02-10',
        payable_days_after: 30,
        fine: { percent_bps: 200 },
        interest: { percent_bps: 100, per: 'month', days: 'calendar' },
        reduction: { amount: 1000 },
        discount: { until: [{ date: '2027-02-05', amount: 2000 }] },
      }),
    ).toBeUndefined();
    expect(
      valid({
        date: '2027-02-10',
        fine: { amount: 500 },
        interest: { amount: 10, days: 'business' },
        reduction: { percent_bps: 500 },
        discount: { per_day_early: { percent_bps: 10, days: 'business' } },
      }),
    ).toBeUndefined();
  });

  it.each([
    ['a date that does not exist', { date: '2027-02-30' }],
    ['a date with a time', { date: '2027-02-10T00:00:00Z' }],
    ['a NUL byte in the date', { date: '2027-02-10\u0000' }],
    ['a percentage beyond 100 %', { date: '2027-02-10', fine: { percent_bps: 10_001 } }],
    ['a percentage of nothing', { date: '2027-02-10', fine: { percent_bps: 0 } }],
    ['a fixed fine that is a fraction of a centavo', { date: '2027-02-10', fine: { amount: 1.5 } }],
    ['a fine both fixed and a percentage', { date: '2027-02-10', fine: { amount: 100, percent_bps: 100 } }],
    ['a percentage interest without its period', { date: '2027-02-10', interest: { percent_bps: 100 } }],
    ['a fixed interest with a period', { date: '2027-02-10', interest: { amount: 100, per: 'month' } }],
    ['interest over weeks', { date: '2027-02-10', interest: { percent_bps: 100, per: 'week' } }],
    ['days neither calendar nor business', { date: '2027-02-10', interest: { amount: 1, days: 'working' } }],
    [
      'four discount dates',
      {
        date: '2027-02-10',
        discount: {
          until: ['2027-02-01', '2027-02-02', '2027-02-03', '2027-02-04'].map((date) => ({
            date,
            amount: 1,
          })),
        },
      },
    ],
    [
      'two discounts on one date',
      {
        date: '2027-02-10',
        discount: {
          until: [
            { date: '2027-02-01', amount: 1 },
            { date: '2027-02-01', amount: 2 },
          ],
        },
      },
    ],
    [
      'both discount forms',
      {
        date: '2027-02-10',
        discount: { until: [{ date: '2027-02-01', amount: 1 }], per_day_early: { amount: 1 } },
      },
    ],
    ['a window over a year', { date: '2027-02-10', payable_days_after: 366 }],
    ['a negative window', { date: '2027-02-10', payable_days_after: -1 }],
  ])('refuses %s', (_name, due) => {
    expect(valid(due)).toBeDefined();
  });
});

describe('what API Pix would refuse of a due date, for its amount', () => {
  const problems = (due: PixDue, amount = 45_000) => pixDueProblems(due, amount, today);

  it('finds nothing in rules API Pix takes', () => {
    expect(
      problems({ date: '2027-01-15', discount: { until: [{ date: '2027-01-15', amount: 100 }] } }),
    ).toEqual([]);
  });

  it.each([
    ['a due date in the past', { date: '2027-01-14' }, 'pix.due.date'],
    [
      'a discount date after the due date',
      {
        date: '2027-02-10',
        discount: { until: [{ date: '2027-02-11', amount: 100 }] },
      },
      'pix.due.discount.until',
    ],
    [
      'discount dates of two kinds',
      {
        date: '2027-02-10',
        discount: {
          until: [
            { date: '2027-02-01', amount: 100 },
            { date: '2027-02-05', percent_bps: 100 },
          ],
        },
      },
      'pix.due.discount.until',
    ],
    [
      'a discount of the whole amount',
      {
        date: '2027-02-10',
        discount: { until: [{ date: '2027-02-01', amount: 45_000 }] },
      },
      'pix.due.discount.until',
    ],
    ['a reduction of 100 %', { date: '2027-02-10', reduction: { percent_bps: 10_000 } }, 'pix.due.reduction'],
    [
      'a per-day discount of the whole amount',
      {
        date: '2027-02-10',
        discount: { per_day_early: { amount: 45_000 } },
      },
      'pix.due.discount.per_day_early',
    ],
    [
      'more than API Pix can write on its last day',
      {
        date: '2027-02-10',
        payable_days_after: 365,
        interest: { percent_bps: 10_000, per: 'day' },
      },
      'pix.due',
    ],
  ] as Array<[string, PixDue, string]>)('names %s', (_name, due, field) => {
    expect(problems(due, field === 'pix.due' ? 900_000_000_000 : 45_000)).toEqual([field]);
  });

  it('refuses a due date more than five years ahead, and takes one exactly five years ahead', () => {
    expect(problems({ date: '2032-01-16' })).toEqual(['pix.due.date']);
    expect(problems({ date: '9999-12-31', payable_days_after: 0 })).toContain('pix.due.date');
    expect(problems({ date: '2900-01-01' })).toEqual(['pix.due.date']);
    expect(problems({ date: '2032-01-15', payable_days_after: 365 })).toEqual([]);
  });

  it('refuses rules whose last payable day would pass 9999-12-31', () => {
    const lateToday = dayNumber('9999-06-01')!;
    expect(pixDueProblems({ date: '9999-12-01', payable_days_after: 30 }, 45_000, lateToday)).toEqual([
      'pix.due.payable_days_after',
    ]);
    expect(pixDueProblems({ date: '9999-12-01', payable_days_after: 20 }, 45_000, lateToday)).toEqual([]);
  });

  it('refuses a reduction and the largest discount that together leave nothing', () => {
    expect(
      problems({
        date: '2027-02-10',
        reduction: { percent_bps: 6000 },
        discount: { until: [{ date: '2027-02-01', percent_bps: 6000 }] },
      }),
    ).toEqual(['pix.due.reduction', 'pix.due.discount.until']);
    expect(
      problems({
        date: '2027-02-10',
        reduction: { amount: 20_000 },
        discount: {
          until: [
            { date: '2027-02-01', amount: 25_000 },
            { date: '2027-02-05', amount: 1_000 },
          ],
        },
      }),
    ).toEqual(['pix.due.reduction', 'pix.due.discount.until']);
    // 26 days early at R$ 10,00 a day, with R$ 190,00 off: R$ 450,00, nothing left.
    expect(
      problems({
        date: '2027-02-10',
        reduction: { amount: 19_000 },
        discount: { per_day_early: { amount: 1_000 } },
      }),
    ).toEqual(['pix.due.reduction', 'pix.due.discount.per_day_early']);
    // A centavo left is a charge.
    expect(
      problems({
        date: '2027-02-10',
        reduction: { amount: 19_999 },
        discount: { until: [{ date: '2027-02-01', amount: 25_000 }] },
      }),
    ).toEqual([]);
  });

  it('refuses a per-day discount that, paid the day it is made, takes the whole amount', () => {
    // 26 days early at 4 % a day: 104 %.
    expect(problems({ date: '2027-02-10', discount: { per_day_early: { percent_bps: 400 } } })).toEqual([
      'pix.due.discount.per_day_early',
    ]);
    expect(problems({ date: '2027-02-10', discount: { per_day_early: { percent_bps: 300 } } })).toEqual([]);
  });

  it('refuses a reduction that rounds to the whole amount (99.5 % of R$ 1,00)', () => {
    expect(problems({ date: '2027-02-10', reduction: { percent_bps: 9950 } }, 100)).toEqual([
      'pix.due.reduction',
    ]);
  });
});

describe('the day an instant falls on in São Paulo', () => {
  it('follows the time zone, not a fixed UTC−03:00', () => {
    expect(saoPauloDay(new Date('2027-01-15T02:59:59Z'))).toBe(dayNumber('2027-01-14'));
    expect(saoPauloDay(new Date('2027-01-15T03:00:00Z'))).toBe(dayNumber('2027-01-15'));
    // Under the daylight saving time Brazil kept until 2019 (UTC−02:00): 00:30 on 1 December 2018 in São Paulo.
    expect(saoPauloDay(new Date('2018-12-01T02:30:00Z'))).toBe(dayNumber('2018-12-01'));
  });
});
