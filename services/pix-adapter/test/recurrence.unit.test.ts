import {
  cancellerOf,
  contractOf,
  isRecMove,
  cycleWindowOver,
  nextClockStop,
  nextRetryDay,
  retriesUsed,
  outcomeOfRecStatus,
  reasonCode,
  txidOfCycle,
} from '../src/domain/recurrence';

import { cobOfCobr, type Cobr } from '../src/clients/psp/rec';

describe('Pix Automático: the adapter’s reading of API Pix', () => {
  test('a recurrence’s contract is its subscription’s id when it fits API Pix’s 35 characters, a stable digest otherwise', () => {
    const short = `sub_${'a'.repeat(24)}`;
    expect(contractOf(short)).toBe(short);
    const long = `sub_${'b'.repeat(32)}`;
    expect(contractOf(long)).toHaveLength(35);
    expect(contractOf(long)).toBe(contractOf(long));
    expect(contractOf(`sub_${'c'.repeat(32)}`)).not.toBe(contractOf(long));
  });

  test('a cycle’s txid follows from the subscription and the cycle, within API Pix’s pattern', () => {
    const txid = txidOfCycle('sub_abc', 1);
    expect(txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    expect(txidOfCycle('sub_abc', 1)).toBe(txid);
    expect(txidOfCycle('sub_abc', 2)).not.toBe(txid);
    expect(txidOfCycle('sub_abd', 1)).not.toBe(txid);
  });

  test('retries: the later of the day after the attempt and the PSP’s tomorrow, at most three, none past the seventh day after the due date', () => {
    const due = '2027-03-01';
    expect(nextRetryDay('none', due, '2027-03-01', '2027-03-01', 0)).toBeNull();
    expect(nextRetryDay('three_in_seven_days', due, '2027-03-01', '2027-03-01', 0)).toBe('2027-03-02');
    expect(nextRetryDay('three_in_seven_days', due, '2027-03-03', '2027-03-03', 2)).toBe('2027-03-04');
    expect(nextRetryDay('three_in_seven_days', due, '2027-03-04', '2027-03-04', 3)).toBeNull();
    expect(nextRetryDay('three_in_seven_days', due, '2027-03-07', '2027-03-07', 1)).toBe('2027-03-08');
    expect(nextRetryDay('three_in_seven_days', due, '2027-03-08', '2027-03-08', 1)).toBeNull();
    // A failure learnt late (a lost callback, an outage): the day after the PSP's today, while the window allows.
    expect(nextRetryDay('three_in_seven_days', due, '2027-03-01', '2027-03-04', 0)).toBe('2027-03-05');
    expect(nextRetryDay('three_in_seven_days', due, '2027-03-01', '2027-03-07', 0)).toBe('2027-03-08');
    expect(nextRetryDay('three_in_seven_days', due, '2027-03-01', '2027-03-08', 0)).toBeNull();
  });

  test('only the receiver’s retries (NTAG) count among the three: the scheduled attempt and the payer’s bank’s own (RIFL) do not', () => {
    expect(retriesUsed([{ tipo: 'AGND' }, { tipo: 'RIFL' }, { tipo: 'RIFL' }, { tipo: 'NTAG' }])).toBe(1);
    expect(retriesUsed([{ tipo: 'AGND' }])).toBe(0);
  });

  test('a cycle ends by the PSP’s today only once its retry window has passed', () => {
    expect(cycleWindowOver('2027-03-01', '2027-03-08')).toBe(false);
    expect(cycleWindowOver('2027-03-01', '2027-03-09')).toBe(true);
  });

  test('the sandbox clock steps a day at a time only across an open cycle’s due date and retry window', () => {
    // No open cycle: straight to `to`.
    expect(nextClockStop('2027-02-01', '2027-06-01', [])).toBe('2027-06-01');
    // Before a due date: straight to it; then a day at a time to the day after its window; then on.
    expect(nextClockStop('2027-02-01', '2027-06-01', ['2027-03-01'])).toBe('2027-03-01');
    expect(nextClockStop('2027-02-28', '2027-06-01', ['2027-03-01'])).toBe('2027-03-01');
    expect(nextClockStop('2027-03-01', '2027-06-01', ['2027-03-01'])).toBe('2027-03-02');
    expect(nextClockStop('2027-03-08', '2027-06-01', ['2027-03-01'])).toBe('2027-03-09');
    expect(nextClockStop('2027-03-09', '2027-06-01', ['2027-03-01'])).toBe('2027-06-01');
    // Never past `to`, never back.
    expect(nextClockStop('2027-02-01', '2027-02-10', ['2027-03-01'])).toBe('2027-02-10');
    expect(nextClockStop('2027-02-10', '2027-02-10', ['2027-02-10'])).toBe('2027-02-10');
  });

  test('statuses, moves, who cancelled and reason codes', () => {
    expect(outcomeOfRecStatus('APROVADA')).toBe('authorized');
    expect(outcomeOfRecStatus('CRIADA')).toBeNull();
    expect(isRecMove('CRIADA', 'APROVADA')).toBe(true);
    expect(isRecMove('APROVADA', 'REJEITADA')).toBe(false);
    expect(isRecMove('CANCELADA', 'APROVADA')).toBe(false);
    expect(cancellerOf('USUARIO_RECEBEDOR')).toBe('merchant');
    expect(cancellerOf('PSP_PAGADOR')).toBe('payer');
    expect(cancellerOf('PSP_RECEBEDOR')).toBe('psp');
    expect(reasonCode('AM02')).toBe('AM02');
    expect(reasonCode('not a code\u0000')).toBeNull();
  });

  test('a cycle seen as a charge: open, debited, cancelled by us or ended otherwise', () => {
    const cobr = (status: Cobr['status'], solicitante?: string): Cobr => ({
      idRec: 'RR1234567820240101aaaaaaaaaaa',
      txid: 'A'.repeat(32),
      status,
      calendario: { dataDeVencimento: '2027-03-01' },
      valor: { original: '49.90' },
      ...(solicitante ? { encerramento: { cancelamento: { solicitante } } } : {}),
    });
    expect(cobOfCobr(cobr('CRIADA')).status).toBe('ATIVA');
    expect(cobOfCobr(cobr('CONCLUIDA')).status).toBe('CONCLUIDA');
    expect(cobOfCobr(cobr('CANCELADA', 'USUARIO_RECEBEDOR')).status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect(cobOfCobr(cobr('CANCELADA', 'USUARIO_PAGADOR')).status).toBe('REMOVIDA_PELO_PSP');
    expect(cobOfCobr(cobr('EXPIRADA')).status).toBe('REMOVIDA_PELO_PSP');
  });
});
