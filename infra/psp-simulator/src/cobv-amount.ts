import { dayOf, businessDaysFrom, onOrNextBusinessDay } from './business-days';

/**
 * What a charge with a due date (API Pix `cobv`) asks for on the day it is paid: one pure function, centavos as
 * integers inside (BigInt where rates multiply amounts), API Pix amount strings (`"123.45"`) only at the edge.
 *
 * What each rule follows (API Pix 2.9.0, `CobVValor`, `CobDataDeVencimento`, `Pix.componentesValor`; the Central
 * Bank's "Manual de Padrões para Iniciação do Pix" could not be reached from here, so where the document is silent
 * the choice is written down and marked CHOICE):
 *
 * - Due date and payable window (`calendario.validadeAposVencimento`, its examples A to G): a due date on a weekend or
 *   holiday moves to the next business day, and every rule referring to it (fine, interest, discounts, the window)
 *   takes the moved date; the window is the moved due date plus `validadeAposVencimento` calendar days, its last day
 *   itself moved to the next business day (examples A, E, G). The document's `CobPayloadOperacaoInvalida` text gives
 *   one example (due 2020-12-25, 10 days, 2021-01-05 refused) that counts from the unmoved date and contradicts
 *   examples C to G; the field's own examples are followed.
 * - `valor.final` = original + multa + juros − abatimento − desconto (`Pix.componentesValor`'s rule).
 * - Abatimento (modalidade 1 fixed, 2 percent of `original`): granted on any payment date.
 * - CHOICE, base: multa, juros and percent discounts fall on what is owed, `original − abatimento` (an abatimento is
 *   a reduction of the debt itself, as in boleto practice).
 * - Multa (1 fixed, 2 percent): charged once when paid after the (moved) due date.
 * - Juros, simple interest on each day late after the (moved) due date: 1 amount per calendar day, 2 percent per
 *   calendar day, 3 percent a month over calendar days, 4 percent a year over calendar days; 5 to 8 the same over
 *   business days (days late counted in (due, payment]). CHOICE: a monthly rate over calendar days is a 30th a day,
 *   a yearly one a 365th; over business days a monthly rate is a 21st a day and a yearly one a 252nd (the Brazilian
 *   market's 252-business-day year, 21 to a month).
 * - Desconto, only up to the (moved) due date: 1 fixed amount, 2 percent, up to the dates of `descontoDataFixa` (the
 *   entry whose date is the earliest not before the payment date applies: each date bounds its own tier; a date that
 *   is the due date itself moves with it, as `CobDataDeVencimento` says every field referring to the due date does,
 *   while the others are taken as written, since a Pix can be paid on any day); 3 amount per calendar day of
 *   anticipation, 4 per business day, 5 percent per
 *   calendar day, 6 per business day (days of anticipation counted in [payment, due)). CHOICE: a discount never takes
 *   the amount below one centavo (a Pix of zero cannot be made), whatever the days of anticipation add up to.
 * - CHOICE, rounding (the document is silent): each component is computed exactly and rounded once, half up to the
 *   centavo (commercial rounding), never per day; the final amount is the sum of the rounded components, so
 *   `componentesValor` always adds up to `valor`. An abatimento that comes to the whole original once rounded (99.5 %
 *   of R$ 1,00) is refused when the cobv is made (`abatimentoCentavos`), as the document refuses one "maior ou igual
 *   ao valor da cobrança original".
 */

export type Modalidade = number;

export interface CobvValorRules {
  /** `valor.original`, in centavos. */
  originalCentavos: number;
  multa?: { modalidade: Modalidade; valorPerc: string };
  juros?: { modalidade: Modalidade; valorPerc: string };
  abatimento?: { modalidade: Modalidade; valorPerc: string };
  desconto?: {
    modalidade: Modalidade;
    valorPerc?: string;
    descontoDataFixa?: Array<{ data: string; valorPerc: string }>;
  };
}

export interface CobvCalendar {
  /** `YYYY-MM-DD`. */
  dataDeVencimento: string;
  validadeAposVencimento: number;
}

/** The components of what is due, in centavos (`final` = original + multa + juros − abatimento − desconto). */
export interface AmountDue {
  original: number;
  multa: number;
  juros: number;
  abatimento: number;
  desconto: number;
  final: number;
}

/** The moved due date and the last day a payment is accepted, as day numbers. */
export function payableWindow(calendar: CobvCalendar): { due: number; lastDay: number } {
  const due = onOrNextBusinessDay(dayOf(calendar.dataDeVencimento)!);
  return { due, lastDay: onOrNextBusinessDay(due + calendar.validadeAposVencimento) };
}

/** What is due on `payDay` (a day number), or `past_window` when the charge can no longer be paid that day. */
export function amountDue(
  calendar: CobvCalendar,
  rules: CobvValorRules,
  payDay: number,
): AmountDue | 'past_window' {
  const { due, lastDay } = payableWindow(calendar);
  if (payDay > lastDay) return 'past_window';
  const original = BigInt(rules.originalCentavos);
  const abatimento = BigInt(abatimentoCentavos(rules));
  const base = original - abatimento;
  const late = payDay > due;
  const multa =
    late && rules.multa
      ? rules.multa.modalidade === 1
        ? hundredths(rules.multa.valorPerc)
        : percentOf(base, hundredths(rules.multa.valorPerc), 1n)
      : 0n;
  const juros = late && rules.juros ? interest(rules.juros, base, due, payDay) : 0n;
  const desconto =
    !late && rules.desconto
      ? discount(rules.desconto, base, { written: dayOf(calendar.dataDeVencimento)!, moved: due }, payDay)
      : 0n;
  // A discount stops one centavo short of the whole amount (and is never below zero).
  const ceiling = base - 1n > 0n ? base - 1n : 0n;
  const cappedDesconto = desconto > ceiling ? ceiling : desconto;
  const final = original + multa + juros - abatimento - cappedDesconto;
  return {
    original: Number(original),
    multa: Number(multa),
    juros: Number(juros),
    abatimento: Number(abatimento),
    desconto: Number(cappedDesconto),
    final: Number(final),
  };
}

function interest(
  juros: NonNullable<CobvValorRules['juros']>,
  base: bigint,
  due: number,
  payDay: number,
): bigint {
  const businessDays = juros.modalidade >= 5;
  const days = BigInt(businessDays ? businessDaysFrom(due + 1, payDay + 1) : payDay - due);
  const rate = hundredths(juros.valorPerc);
  switch (businessDays ? juros.modalidade - 4 : juros.modalidade) {
    case 1:
      return rate * days; // an amount a day
    case 2:
      return percentOf(base, rate * days, 1n);
    case 3:
      return percentOf(base, rate * days, businessDays ? 21n : 30n);
    default:
      return percentOf(base, rate * days, businessDays ? 252n : 365n);
  }
}

/** The abatimento of `rules`, in centavos (a percentage of the original rounded half up). */
export function abatimentoCentavos(rules: Pick<CobvValorRules, 'originalCentavos' | 'abatimento'>): number {
  if (!rules.abatimento) return 0;
  const value = hundredths(rules.abatimento.valorPerc);
  return Number(
    rules.abatimento.modalidade === 1 ? value : percentOf(BigInt(rules.originalCentavos), value, 1n),
  );
}

function discount(
  desconto: NonNullable<CobvValorRules['desconto']>,
  base: bigint,
  dueDate: { written: number; moved: number },
  payDay: number,
): bigint {
  const due = dueDate.moved;
  if (desconto.modalidade <= 2) {
    const tier = (desconto.descontoDataFixa ?? [])
      .map((entry) => {
        const day = dayOf(entry.data)!;
        return { day: day === dueDate.written ? dueDate.moved : day, valorPerc: entry.valorPerc };
      })
      .filter((entry) => entry.day >= payDay)
      .sort((a, b) => a.day - b.day)[0];
    if (!tier) return 0n;
    return desconto.modalidade === 1
      ? hundredths(tier.valorPerc)
      : percentOf(base, hundredths(tier.valorPerc), 1n);
  }
  const businessDays = desconto.modalidade === 4 || desconto.modalidade === 6;
  const days = BigInt(businessDays ? businessDaysFrom(payDay, due) : Math.max(0, due - payDay));
  const rate = hundredths(desconto.valorPerc ?? '0.00');
  return desconto.modalidade <= 4 ? rate * days : percentOf(base, rate * days, 1n);
}

/** `amount × (percentHundredths / 100)% / divisor`, rounded half up to the centavo. */
function percentOf(amount: bigint, percentHundredths: bigint, divisor: bigint): bigint {
  const numerator = amount * percentHundredths;
  const denominator = 10_000n * divisor;
  return (2n * numerator + denominator) / (2n * denominator);
}

/** `"12.34"` as 1234 (centavos, or hundredths of a percent point). */
function hundredths(value: string): bigint {
  const [whole, fraction] = value.split('.');
  return BigInt(whole!) * 100n + BigInt(fraction!);
}
