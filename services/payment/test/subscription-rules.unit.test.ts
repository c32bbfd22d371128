import { decideClosure } from '../src/domain/funds';
import { railClosure } from '../src/clients/rail';
import {
  cycleAfter,
  cycleDueDate,
  cycleSendDay,
  cycleSendDeadline,
  decideRecurrenceChange,
} from '../src/domain/subscription';

describe("a subscription's cycles", () => {
  test('monthly due dates count from the start date, clamped to each month (never drifting to the 28th)', () => {
    const dates = [1, 2, 3, 4, 13].map((cycle) => cycleDueDate('2027-01-31', 'monthly', cycle));
    expect(dates).toEqual(['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30', '2028-01-31']);
    expect(cycleDueDate('2028-01-31', 'monthly', 2)).toBe('2028-02-29');
  });

  test('weekly is 7 days apart; quarterly, semiannual and yearly 3, 6 and 12 months', () => {
    expect(cycleDueDate('2027-12-29', 'weekly', 2)).toBe('2028-01-05');
    expect(cycleDueDate('2027-11-30', 'quarterly', 2)).toBe('2028-02-29');
    expect(cycleDueDate('2027-08-31', 'semiannual', 2)).toBe('2028-02-29');
    expect(cycleDueDate('2028-02-29', 'yearly', 2)).toBe('2029-02-28');
    expect(cycleDueDate('2028-02-29', 'yearly', 5)).toBe('2032-02-29');
  });

  test('a cycle is sent 7 days before its due date, inside BCB window of 10 to 2', () => {
    expect(cycleSendDay('2027-03-05')).toBe('2027-02-26');
  });

  test('a cycle can be sent no later than 2 days before its due date (BCB)', () => {
    expect(cycleSendDeadline('2027-03-05')).toBe('2027-03-03');
    expect(cycleSendDeadline('2027-03-01')).toBe('2027-02-27');
  });

  test('a cycle the payer cancelled before its debit is cancelled, not failed', () => {
    const closure = railClosure('pay_1', 'failed', 'cancelado', [], 'cycle_cancelled');
    expect(closure.ending).toBe('cycle-cancelled');
    expect(decideClosure(closure.ending, false, closure.detail)).toEqual({
      status: 'cancelled',
      failureCode: null,
      failureReason: null,
    });
  });

  test('no cycle falls after end_date', () => {
    const subscription = { startDate: '2027-01-10', interval: 'monthly' as const, endDate: '2027-03-09' };
    expect(cycleAfter(subscription, 1)).toEqual({ cycle: 2, dueDate: '2027-02-10' });
    expect(cycleAfter(subscription, 2)).toBeNull();
  });
});

describe('what an authorization outcome does', () => {
  const outcome = (o: 'authorized' | 'rejected' | 'cancelled' | 'expired', by: 'payer' | null = null) => ({
    outcome: o,
    cancelled_by: by,
  });

  test('pending: authorized activates, rejected cancels by the payer, expired expires', () => {
    expect(decideRecurrenceChange('pending_authorization', outcome('authorized'))).toEqual({
      status: 'active',
    });
    expect(decideRecurrenceChange('pending_authorization', outcome('rejected'))).toEqual({
      status: 'cancelled',
      cancelledBy: 'payer',
      reason: 'authorization_rejected',
    });
    expect(decideRecurrenceChange('pending_authorization', outcome('expired'))).toEqual({
      status: 'expired',
    });
  });

  test('active: cancelled names who (the PSP when nobody is named); authorized again changes nothing', () => {
    expect(decideRecurrenceChange('active', outcome('cancelled', 'payer'))).toEqual({
      status: 'cancelled',
      cancelledBy: 'payer',
      reason: 'requested',
    });
    expect(decideRecurrenceChange('active', outcome('cancelled'))).toMatchObject({ cancelledBy: 'psp' });
    expect(decideRecurrenceChange('active', outcome('authorized'))).toBeNull();
    expect(decideRecurrenceChange('active', outcome('rejected'))).toBeNull();
  });

  test('an ended subscription changes no more', () => {
    for (const ended of ['cancelled', 'expired'] as const)
      for (const o of ['authorized', 'rejected', 'cancelled', 'expired'] as const)
        expect(decideRecurrenceChange(ended, outcome(o))).toBeNull();
  });
});
