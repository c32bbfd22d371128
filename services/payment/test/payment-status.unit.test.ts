import { canTransition, isOpen } from '../src/domain/payment-status';
import { decideClosure, decidePixSettlement } from '../src/domain/settlement';

describe('payment status machine', () => {
  test('only pending and processing are open, and only they can move to a final status', () => {
    expect(
      ['pending', 'processing', 'paid', 'failed', 'expired', 'cancelled'].filter((s) => isOpen(s as never)),
    ).toEqual(['pending', 'processing']);
    expect(canTransition('processing', 'paid')).toBe(true);
    expect(canTransition('pending', 'expired')).toBe(true);
    expect(canTransition('paid', 'expired')).toBe(false);
    expect(canTransition('expired', 'paid')).toBe(false);
    expect(canTransition('pending', 'processing')).toBe(false);
  });

  test('a PIX of the full amount pays, less is partial, more pays with the excess, an ended payment takes it late', () => {
    const open = { paymentIsOpen: true, expectedCentavos: 1000 };
    expect(decidePixSettlement({ ...open, receivedCentavos: 1000 })).toEqual({
      kind: 'paid',
      excessCentavos: 0,
    });
    expect(decidePixSettlement({ ...open, receivedCentavos: 999 })).toEqual({ kind: 'partial' });
    expect(decidePixSettlement({ ...open, receivedCentavos: 1200 })).toEqual({
      kind: 'paid',
      excessCentavos: 200,
    });
    expect(
      decidePixSettlement({ paymentIsOpen: false, expectedCentavos: 1000, receivedCentavos: 1000 }),
    ).toEqual({ kind: 'late' });
  });

  test('an expiry after a partial amount fails as UNDERPAID; without one it is a plain expiry', () => {
    expect(decideClosure('expired', false, null)).toEqual({
      status: 'expired',
      failureCode: null,
      failureReason: null,
    });
    expect(decideClosure('expired', true, null)).toMatchObject({
      status: 'failed',
      failureCode: 'UNDERPAID',
    });
    expect(decideClosure('underpaid', true, null)).toMatchObject({
      status: 'failed',
      failureCode: 'UNDERPAID',
    });
    expect(decideClosure('failed', false, 'REMOVIDA_PELO_PSP')).toMatchObject({
      status: 'failed',
      failureCode: 'RAIL_FAILED',
      failureReason: expect.stringContaining('REMOVIDA_PELO_PSP'),
    });
  });
});
