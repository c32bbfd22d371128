import type { FeeRule } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';

/** Creates or replaces the fee rule of one (business, method); it applies to payments created from now on. */
export function handleSetFeeRule(uow: UnitOfWork) {
  return async (rule: FeeRule, context: MessageContext): Promise<FeeRule> =>
    uow.once(context, async (tx) => {
      await tx.manager.query(
        `INSERT INTO fee_rules (business_id, method, percent_bps, fixed_centavos) VALUES ($1, $2, $3, $4)
         ON CONFLICT (business_id, method)
         DO UPDATE SET percent_bps = EXCLUDED.percent_bps, fixed_centavos = EXCLUDED.fixed_centavos,
                       updated_at = now()`,
        [rule.business_id, rule.method, rule.percent_bps, rule.fixed_centavos],
      );
      return rule;
    });
}
