import { decideMed, defenceRefusal, disputableCentavos, medOutcome } from '../src/domain/dispute';
import { decideRefund } from '../src/domain/refund';

describe('dispute rules (MED)', () => {
  test('a MED devolução DEVOLVIDO loses the dispute, NAO_REALIZADO wins it, EM_PROCESSAMENTO leaves it open', () => {
    expect(medOutcome('DEVOLVIDO')).toBe('lost');
    expect(medOutcome('NAO_REALIZADO')).toBe('won');
    expect(medOutcome('EM_PROCESSAMENTO')).toBeNull();
  });

  test('first seen: opened, and closed at once when already final', () => {
    expect(decideMed(null, 'EM_PROCESSAMENTO')).toEqual({ open: true, close: null });
    expect(decideMed(null, 'DEVOLVIDO')).toEqual({ open: true, close: 'lost' });
    expect(decideMed(null, 'NAO_REALIZADO')).toEqual({ open: true, close: 'won' });
  });

  test('an open dispute closes once; a repeat or a report after its end changes nothing', () => {
    expect(decideMed({ status: 'open' }, 'EM_PROCESSAMENTO')).toBeNull();
    expect(decideMed({ status: 'open' }, 'DEVOLVIDO')).toEqual({ open: false, close: 'lost' });
    expect(decideMed({ status: 'open' }, 'NAO_REALIZADO')).toEqual({ open: false, close: 'won' });
    for (const closed of ['won', 'lost'] as const)
      for (const reported of ['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'] as const)
        expect(decideMed({ status: closed }, reported)).toBeNull();
  });

  test('refunds not failed and disputes not won leave the rest: what a MED or a refund may still claim', () => {
    const payment = { amountCentavos: 10000, refundReservedCentavos: 3000, disputedCentavos: 2000 };
    expect(disputableCentavos(payment)).toBe(5000);
    const paid = { ...payment, status: 'paid' as const, paidAt: new Date() };
    expect(decideRefund(paid, null, null, new Date())).toEqual({ ok: true, amountCentavos: 5000 });
    expect(decideRefund(paid, 5001, null, new Date())).toMatchObject({ ok: false, code: 'INVALID_AMOUNT' });
  });

  test('only an open dispute takes a defence, and only once', () => {
    expect(defenceRefusal({ status: 'open', defenceSubmittedAt: null })).toBeNull();
    expect(defenceRefusal({ status: 'open', defenceSubmittedAt: new Date() })).toMatch(/já foi enviada/);
    for (const status of ['won', 'lost'] as const)
      expect(defenceRefusal({ status, defenceSubmittedAt: null })).toMatch(new RegExp(status));
  });
});
