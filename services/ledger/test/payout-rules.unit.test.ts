import { payoutAccountProblems } from '@gateway/contracts';
import { decidePayout, maskPixKey, settledPayoutOutcome } from '../src/domain/payout';
import { journalSum, payoutRequestedPosting, payoutSettledPosting } from '../src/domain/posting-rules';

const account = {
  pix_key: '12345678000195',
  pix_key_type: 'cnpj',
  holder_document: '12345678000195',
} as const;

describe('payout rules', () => {
  test('a key is never shown whole', () => {
    expect(maskPixKey('cpf', '12345678901')).toBe('***.456.789-**');
    expect(maskPixKey('cnpj', '12345678000195')).toBe('**.345.678/0001-**');
    expect(maskPixKey('email', 'financeiro@loja.com.br')).toBe('f***@loja.com.br');
    expect(maskPixKey('phone', '+5511987654321')).toBe('+55*******4321');
    expect(maskPixKey('evp', '123e4567-e89b-12d3-a456-426614174000')).toBe(
      '123e****-****-****-****-********4000',
    );
  });

  test('how much a payout takes, or why none', () => {
    const decide = (requested: number | null, available: number | null, withAccount = true) =>
      decidePayout({
        requestedCentavos: requested,
        account: withAccount ? account : null,
        availableCentavos: available,
      });
    expect(decide(99, 10_000)).toMatchObject({ ok: false, code: 'INVALID_AMOUNT' });
    expect(decide(100, 10_000, false)).toMatchObject({ ok: false, code: 'NO_PAYOUT_ACCOUNT' });
    expect(decide(10_001, 10_000)).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' });
    expect(decide(null, 99)).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' });
    expect(decide(null, null)).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' });
    expect(decide(100, -500)).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' });
    expect(decide(null, 10_000)).toEqual({ ok: true, amountCentavos: 10_000 });
    expect(decide(10_000, 10_000)).toEqual({ ok: true, amountCentavos: 10_000 });
  });

  test('the postings move reserved money and sum to zero; only a paid payout writes a balance transaction', () => {
    const payout = { payoutId: 'po_x', businessId: 'biz_x', amountCentavos: 2_500 };
    const requested = payoutRequestedPosting(payout);
    expect(requested.deltas).toEqual({ available: -2_500, reserved: 2_500, pending: 0, blocked: 0 });
    expect(requested.balanceTransaction).toBeNull();
    const at = new Date('2026-11-29T12:00:00Z');
    const paid = payoutSettledPosting(payout, 'paid', at, 'E09089356202611291200payoutx');
    expect(paid.causeKey).toBe('payout:po_x:paid');
    // The Pix sent's endToEndId, as the PSP lists it: what reconciliation matches the payout on.
    expect(paid.railReference).toBe('E09089356202611291200payoutx');
    expect(paid.deltas).toEqual({ available: 0, reserved: -2_500, pending: 0, blocked: 0 });
    expect(paid.balanceTransaction).toMatchObject({
      type: 'payout',
      amountCentavos: -2_500,
      netCentavos: -2_500,
    });
    const failed = payoutSettledPosting(payout, 'failed', at, null);
    expect(failed.railReference).toBeNull();
    expect(failed.deltas).toEqual({ available: 2_500, reserved: -2_500, pending: 0, blocked: 0 });
    expect(failed.balanceTransaction).toBeNull();
    for (const posting of [requested, paid, failed]) expect(journalSum(posting.lines)).toBe(0);
  });

  test('an outcome settles a pending payout only', () => {
    expect(settledPayoutOutcome('pending', { outcome: 'paid' })).toBe('settle');
    expect(settledPayoutOutcome('paid', { outcome: 'paid' })).toBe('already_settled');
    expect(settledPayoutOutcome('failed', { outcome: 'paid' })).toBe('contradicts');
  });

  test('a payout account: the key of its type, a CPF or CNPJ key its holder own', () => {
    expect(payoutAccountProblems(account)).toEqual([]);
    expect(payoutAccountProblems({ ...account, holder_document: '98765432000110' })).toEqual([
      'holder_document',
    ]);
    expect(
      payoutAccountProblems({
        pix_key: '5511987654321',
        pix_key_type: 'phone',
        holder_document: '12345678901',
      }),
    ).toEqual(['pix_key']);
    expect(
      payoutAccountProblems({ pix_key: 'a@b.co', pix_key_type: 'email', holder_document: '12345678901' }),
    ).toEqual([]);
  });
});
