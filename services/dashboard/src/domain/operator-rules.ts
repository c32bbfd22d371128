import { formatBrl, parseBrlInput } from './format';

/**
 * The operator console's rules: who may open a page of it, and what its forms accept. An operator is a person of the
 * platform, never a member of a business; a business's member (whatever their role) is refused every page of it.
 */

/** Who a request's session is, as far as the console cares. */
export type ConsoleVisitor =
  { kind: 'anonymous' } | { kind: 'member' } | { kind: 'operator'; secondFactor: boolean };

/** Paths an operator without a confirmed second factor may open: enrolling one, and nothing else. */
export const ENROLMENT_PATH = '/operador/seguranca';

export type ConsoleAccess = 'allow' | 'sign_in' | 'forbidden' | 'enrol_first';

/**
 * Whether a visitor may open `path` of the console: an operator with a second factor anything; an operator without one
 * only the page that enrols it; a member never; nobody signed in is asked to.
 */
export function consoleAccess(visitor: ConsoleVisitor, path: string): ConsoleAccess {
  if (visitor.kind === 'anonymous') return 'sign_in';
  if (visitor.kind === 'member') return 'forbidden';
  if (visitor.secondFactor) return 'allow';
  return path === ENROLMENT_PATH || path.startsWith(`${ENROLMENT_PATH}/`) ? 'allow' : 'enrol_first';
}

/** A fee rule as the form gives it: the percentage (`0,99` is 99 basis points) and the fixed part in reais. */
export interface FeeRuleForm {
  percentBps: number;
  fixedCentavos: number;
}

/** The most a fee's percentage may be, in basis points (100 %). */
export const FEE_PERCENT_BPS_MAX = 10_000;

/**
 * Reads the fee rule form: a percentage with up to two decimals (comma or dot), at most 100; a fixed part in reais
 * (`0,10`). Answers the rule, or the fields' problems in Portuguese.
 */
export function readFeeRuleForm(
  percent: string,
  fixed: string,
): { ok: true; value: FeeRuleForm } | { ok: false; errors: { percent?: string; fixed?: string } } {
  const errors: { percent?: string; fixed?: string } = {};
  const percentText = percent.trim().replace(/\s*%$/, '');
  let percentBps = NaN;
  if (/^\d{1,3}([.,]\d{1,2})?$/.test(percentText)) {
    const [whole, fraction = ''] = percentText.replace(',', '.').split('.');
    percentBps = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  }
  if (!Number.isInteger(percentBps) || percentBps > FEE_PERCENT_BPS_MAX)
    errors.percent = 'Informe um percentual entre 0 e 100, com até duas casas decimais (ex.: 0,99).';
  const fixedCentavos = fixed.trim() === '' ? 0 : parseBrlInput(fixed);
  if (fixedCentavos === null) errors.fixed = 'Informe um valor em reais (ex.: 0,10).';
  if (errors.percent || errors.fixed) return { ok: false, errors };
  return { ok: true, value: { percentBps, fixedCentavos: fixedCentavos! } };
}

/** A rule as the console shows it: `0,99 % + R$ 0,10`. */
export function feeRuleText(rule: FeeRuleForm): string {
  const percent = (rule.percentBps / 100).toFixed(2).replace('.', ',');
  return `${percent} % + ${formatBrl(rule.fixedCentavos / 100)}`;
}
