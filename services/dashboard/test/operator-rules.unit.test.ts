import { consoleAccess, feeRuleText, readFeeRuleForm } from '../src/domain/operator-rules';

describe('the operator console: who may open what', () => {
  test('nobody signed in is asked to sign in; a business member is refused every page', () => {
    expect(consoleAccess({ kind: 'anonymous' }, '/operador/empresas')).toBe('sign_in');
    expect(consoleAccess({ kind: 'member' }, '/operador/empresas')).toBe('forbidden');
    expect(consoleAccess({ kind: 'member' }, '/operador/seguranca')).toBe('forbidden');
  });

  test('an operator without a second factor opens only its enrolment; with one, everything', () => {
    const enrolling = { kind: 'operator', secondFactor: false } as const;
    expect(consoleAccess(enrolling, '/operador/seguranca')).toBe('allow');
    expect(consoleAccess(enrolling, '/operador/seguranca/autenticador/confirmar')).toBe('allow');
    expect(consoleAccess(enrolling, '/operador')).toBe('enrol_first');
    expect(consoleAccess(enrolling, '/operador/segurancax')).toBe('enrol_first');
    expect(consoleAccess(enrolling, '/operador/empresas')).toBe('enrol_first');
    expect(consoleAccess({ kind: 'operator', secondFactor: true }, '/operador/empresas')).toBe('allow');
  });
});

describe('the fee rule form', () => {
  test('reads a percentage with up to two decimals and a fixed part in reais', () => {
    expect(readFeeRuleForm('0,99', '0,10')).toEqual({
      ok: true,
      value: { percentBps: 99, fixedCentavos: 10 },
    });
    expect(readFeeRuleForm('1.5 %', 'R$ 1,00')).toEqual({
      ok: true,
      value: { percentBps: 150, fixedCentavos: 100 },
    });
    expect(readFeeRuleForm('100', '')).toEqual({ ok: true, value: { percentBps: 10_000, fixedCentavos: 0 } });
  });

  test('refuses what is not a percentage from 0 to 100, or not an amount', () => {
    expect(readFeeRuleForm('100,01', '0')).toMatchObject({
      ok: false,
      errors: { percent: expect.any(String) },
    });
    expect(readFeeRuleForm('-1', '0')).toMatchObject({ ok: false, errors: { percent: expect.any(String) } });
    expect(readFeeRuleForm('1,999', '0')).toMatchObject({ ok: false });
    expect(readFeeRuleForm('', '0')).toMatchObject({ ok: false });
    expect(readFeeRuleForm('1', 'dez')).toEqual({ ok: false, errors: { fixed: expect.any(String) } });
  });

  test('shows a rule as people read it', () => {
    expect(feeRuleText({ percentBps: 150, fixedCentavos: 20 })).toBe('1,50 % + R$ 0,20');
    expect(feeRuleText({ percentBps: 0, fixedCentavos: 0 })).toBe('0,00 % + R$ 0,00');
  });
});
