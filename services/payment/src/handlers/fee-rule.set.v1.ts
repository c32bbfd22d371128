import type { FeeRule } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { replaceFeeRule } from '../application/set-fee-rule';

/** Creates or replaces the fee rule of one (business, method); a redelivered command answers as the first (inbox). */
export function handleSetFeeRule(uow: UnitOfWork) {
  return async (rule: FeeRule, context: MessageContext): Promise<FeeRule> =>
    replaceFeeRule(uow, rule, context);
}
