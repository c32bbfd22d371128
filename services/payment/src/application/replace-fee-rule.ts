import type { FeeRule } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { upsertFeeRule } from '../persistence';

/** Creates or replaces the fee rule of one (business, method); it applies to payments created from now on. */
export function replaceFeeRule(uow: UnitOfWork, rule: FeeRule, context: MessageContext): Promise<FeeRule> {
  return uow.once(context, async (tx) => {
    await upsertFeeRule(tx.manager, rule);
    return rule;
  });
}
