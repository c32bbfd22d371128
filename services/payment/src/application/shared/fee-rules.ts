import type { EntityManager } from 'typeorm';
import type { PaymentMethod } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { computeFee, type FeeTerms } from '../../domain/fee';
import { adoptFeeRule, findFeeRule } from '../../persistence';

/** The deployment's default fee rule of each method (null: none), DEFAULT_FEE_PIX and DEFAULT_FEE_CRYPTO. */
export type DefaultFees = Record<PaymentMethod, FeeTerms | null>;

/**
 * The business's fee rule for the method. A business without one gets the deployment's default, stored as its own
 * (unless the operator set one meanwhile), so a later change of the default leaves the price it started with alone.
 * Null when it has none and the deployment sets no default.
 */
export async function businessFeeRule(
  manager: EntityManager,
  defaultFees: DefaultFees,
  businessId: string,
  method: PaymentMethod,
): Promise<FeeTerms | null> {
  const own = await findFeeRule(manager, businessId, method);
  const fallback = defaultFees[method];
  if (own || !fallback) return own;
  await adoptFeeRule(manager, {
    business_id: businessId,
    method,
    percent_bps: fallback.percentBps,
    fixed_centavos: fallback.fixedCentavos,
  });
  return findFeeRule(manager, businessId, method);
}

/** NO_FEE_RULE: the business has no fee rule for the method (and the deployment no default). */
export const noFeeRule = (method: PaymentMethod): CommandError =>
  new CommandError('NO_FEE_RULE', `Não há regra de tarifa configurada para o método de pagamento ${method}.`);

/**
 * The fee on money credited to a business out of suspense (returned by hand, assigned by the operator): what the
 * business's fee rule for the money's rail charges on its value, as it would on a payment of that amount, so routing
 * a sale through late or excess money saves no fee (docs/adr/0023-suspense-credits.md). Zero for money the books hold
 * no value of (nothing is credited). NO_FEE_RULE when the business has no rule for the rail.
 */
export async function suspenseCreditFee(
  manager: EntityManager,
  defaultFees: DefaultFees,
  businessId: string,
  funds: { rail: PaymentMethod; valuedCentavos: number | null },
): Promise<number> {
  if (funds.valuedCentavos === null) return 0;
  const rule = await businessFeeRule(manager, defaultFees, businessId, funds.rail);
  if (!rule) throw noFeeRule(funds.rail);
  return computeFee(funds.valuedCentavos, rule).feeCentavos;
}
