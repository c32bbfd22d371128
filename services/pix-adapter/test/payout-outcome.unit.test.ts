import {
  MAX_PAYOUT_FAILURE_REASON,
  payoutRetryDelaySeconds,
  refusedPayoutReason,
  unmadePayoutReason,
} from '../src/domain/payout-outcome';

describe('payout outcomes in words', () => {
  test('a refusal names what was refused, then the PSP’s words', () => {
    expect(refusedPayoutReason('insufficient_balance', 'O saldo em conta é insuficiente')).toBe(
      'O PSP recusou o envio (saldo insuficiente na conta da plataforma): O saldo em conta é insuficiente',
    );
    expect(refusedPayoutReason('key_holder_mismatch', 'x')).toContain('não pertence ao documento do titular');
    expect(refusedPayoutReason('something_new', 'x')).toBe('O PSP recusou o envio (requisição recusada): x');
  });

  test('a send not made tells the callback’s reason code, origin and reason, or that none was told', () => {
    expect(
      unmadePayoutReason({ code: 'AC03', origin: 'PSP do usuário recebedor', reason: 'Conta encerrada' }),
    ).toBe('O envio não foi realizado (AC03, PSP do usuário recebedor): Conta encerrada');
    expect(unmadePayoutReason({ code: 'AM18', origin: '', reason: '' })).toBe(
      'O envio não foi realizado (AM18): sem motivo informado',
    );
    expect(unmadePayoutReason()).toBe('O envio não foi realizado pelo PSP (motivo não informado).');
  });

  test('a reason fits the settled event', () => {
    expect(refusedPayoutReason('denied', 'x'.repeat(1000))).toHaveLength(MAX_PAYOUT_FAILURE_REASON);
    expect(unmadePayoutReason({ code: 'AC03', origin: 'o', reason: 'y'.repeat(1000) })).toHaveLength(
      MAX_PAYOUT_FAILURE_REASON,
    );
  });

  test('the wait before the next attempt doubles from the first, up to the longest', () => {
    expect([1, 2, 3, 4, 5, 8, 100].map((n) => payoutRetryDelaySeconds(n, 5, 60))).toEqual([
      5, 10, 20, 40, 60, 60, 60,
    ]);
    expect(payoutRetryDelaySeconds(0, 5, 60)).toBe(5);
    expect(payoutRetryDelaySeconds(1, 30, 10)).toBe(10);
  });
});
