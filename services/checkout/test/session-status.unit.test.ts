import fc from 'fast-check';
import {
  isPaymentOutcomeEvent,
  nextSessionStatus,
  type PaymentOutcomeEvent,
  type SessionStatus,
} from '../src/domain/session-status';

const outcomeEvents: PaymentOutcomeEvent[] = ['payment.confirmed', 'payment.expired', 'payment.failed'];

describe('nextSessionStatus', () => {
  it.each([
    ['payment.confirmed', 'paid'],
    ['payment.expired', 'expired'],
    ['payment.failed', 'failed'],
  ] as const)('an initiated session becomes what its payment became: %s -> %s', (event, status) => {
    expect(nextSessionStatus('initiated', event)).toBe(status);
  });

  it('a session that has ended never changes, whatever events arrive later or again', () => {
    const finalStatus = fc.constantFrom<SessionStatus>('paid', 'expired', 'failed');
    fc.assert(
      fc.property(finalStatus, fc.array(fc.constantFrom(...outcomeEvents)), (status, events) => {
        expect(events.reduce(nextSessionStatus, status)).toBe(status);
      }),
    );
  });
});

describe('isPaymentOutcomeEvent', () => {
  it.each(['payment.confirmed', 'payment.expired', 'payment.failed', 'payment.cancelled'])(
    '%s ends the payment, so it moves the session',
    (event) => {
      expect(isPaymentOutcomeEvent(event)).toBe(true);
    },
  );

  it.each(['payment.created', 'payment.confirmed.v1', 'toString'])('%s moves no session', (event) => {
    expect(isPaymentOutcomeEvent(event)).toBe(false);
  });
});
