import { decideClosure, decideFunds, type FundsReceived } from '../src/domain/funds';
import { canTransition, isOpen } from '../src/domain/payment-status';

const pix = (centavos: number): FundsReceived => ({
  paymentId: 'pay_1',
  rail: 'pix',
  reference: 'E2E1',
  received: BigInt(centavos),
  against: { kind: 'payment-amount' },
});

const crypto = (received: bigint, price: bigint): FundsReceived => ({
  paymentId: 'pay_1',
  rail: 'crypto',
  reference: 'sig1',
  received,
  against: { kind: 'price', units: price },
});

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
    const open = { isOpen: true, amountCentavos: 1000 };
    expect(decideFunds(pix(1000), open)).toEqual({ kind: 'paid', excess: 0n });
    expect(decideFunds(pix(999), open)).toEqual({ kind: 'partial' });
    expect(decideFunds(pix(1200), open)).toEqual({ kind: 'paid', excess: 200n });
    expect(decideFunds(pix(1000), { isOpen: false, amountCentavos: 1000 })).toEqual({ kind: 'late' });
    expect(decideFunds(pix(1000), null)).toEqual({ kind: 'late' });
  });

  test('crypto is measured against the rail’s price in base units, not the payment’s centavos', () => {
    const open = { isOpen: true, amountCentavos: 1000 };
    expect(decideFunds(crypto(5_000_000n, 5_000_000n), open)).toEqual({ kind: 'paid', excess: 0n });
    expect(decideFunds(crypto(5_000_123n, 5_000_000n), open)).toEqual({ kind: 'paid', excess: 123n });
    expect(decideFunds(crypto(4_999_999n, 5_000_000n), open)).toEqual({ kind: 'partial' });
    expect(decideFunds(crypto(5_000_000n, 5_000_000n), { isOpen: false, amountCentavos: 1000 })).toEqual({
      kind: 'late',
    });
    const short: FundsReceived = { ...crypto(10n, 0n), against: { kind: 'counted-short' } };
    expect(decideFunds(short, open)).toEqual({ kind: 'partial' });
    expect(decideFunds(short, { isOpen: false, amountCentavos: 1000 })).toEqual({ kind: 'late' });
  });

  test('a window that passed after partial funds fails as UNDERPAID, whatever the rail; without any it is a plain expiry', () => {
    expect(decideClosure('window-passed', false, null)).toEqual({
      status: 'expired',
      failureCode: null,
      failureReason: null,
    });
    expect(decideClosure('window-passed', true, null)).toMatchObject({
      status: 'failed',
      failureCode: 'UNDERPAID',
    });
    expect(decideClosure('refused', false, 'REMOVIDA_PELO_PSP')).toMatchObject({
      status: 'failed',
      failureCode: 'RAIL_FAILED',
      failureReason: expect.stringContaining('REMOVIDA_PELO_PSP'),
    });
  });
});
