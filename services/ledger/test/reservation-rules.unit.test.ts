import fc from 'fast-check';
import {
  journalSum,
  releasePosting,
  releaseReturns,
  reservationPosting,
  reservationSources,
  type PendingRemainder,
} from '../src/domain/posting-rules';

const remainder = (paymentId: string, remainingCentavos: number, dueInSeconds: number): PendingRemainder => ({
  paymentId,
  remainingCentavos,
  availableOn: new Date(Date.UTC(2026, 0, 1) + dueInSeconds * 1000),
});

describe('where a refund reservation takes its money from', () => {
  test("its own payment's pending first, then available, then other payments' pending, latest due first", () => {
    const own = remainder('pay_own', 300, 10);
    const soon = remainder('pay_soon', 500, 5);
    const late = remainder('pay_late', 400, 50);
    expect(reservationSources(1500, own, 700, [soon, late, own])).toEqual({
      fromAvailableCentavos: 700,
      fromPending: [
        { payment_id: 'pay_own', centavos: 300 },
        { payment_id: 'pay_late', centavos: 400 },
        { payment_id: 'pay_soon', centavos: 100 },
      ],
    });
    expect(reservationSources(200, own, 700, [])).toEqual({
      fromAvailableCentavos: 0,
      fromPending: [{ payment_id: 'pay_own', centavos: 200 }],
    });
  });

  test('more than available + pending is refused; a negative available counts as nothing', () => {
    expect(reservationSources(1001, null, 1000, [])).toBeNull();
    expect(reservationSources(100, remainder('pay_a', 50, 0), -500, [])).toBeNull();
    expect(reservationSources(50, remainder('pay_a', 50, 0), -500, [])).toEqual({
      fromAvailableCentavos: 0,
      fromPending: [{ payment_id: 'pay_a', centavos: 50 }],
    });
  });

  test('any reservation and its release sum to zero and give every part back (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: -1000, max: 100_000 }),
        fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        (amount, available, rests, settledLater) => {
          const remainders = rests.map((rest, i) => remainder(`pay_${i}`, rest, i));
          const sources = reservationSources(amount, remainders[0] ?? null, available, remainders.slice(1));
          const covered = Math.max(0, available) + rests.reduce((sum, rest) => sum + rest, 0);
          if (sources === null) return expect(amount).toBeGreaterThan(covered);
          const reservation = {
            id: 'ref_x',
            businessId: 'biz_x',
            paymentId: 'pay_0',
            amountCentavos: amount,
            ...sources,
          };
          const reserved = reservationPosting(reservation);
          expect(journalSum(reserved.lines)).toBe(0);
          expect(reserved.deltas.reserved).toBe(amount);
          expect(reserved.deltas.available + sources.fromAvailableCentavos).toBe(0);
          const unsettled = new Set(remainders.filter((_, i) => !settledLater[i]).map((r) => r.paymentId));
          const returns = releaseReturns(reservation, unsettled);
          const released = releasePosting(reservation, returns);
          expect(journalSum(released.lines)).toBe(0);
          expect(released.deltas.reserved).toBe(-amount);
          // What went to a settled payment's remainder comes back as available instead.
          expect(released.deltas.available + released.deltas.pending).toBe(amount);
          return true;
        },
      ),
    );
  });
});
