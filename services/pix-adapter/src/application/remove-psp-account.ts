import type { PspAccountOf } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { hasOpenCharge, lockAccountInForce, retireAccount } from '../persistence/psp-account-store';

/**
 * `pix.psp-account.remove.v1` (the operator's): the business's charges go to the platform's account again. Refused
 * while a charge opened at its own account is open (its amount change, removal and callback need the account). The
 * account is retired, not deleted: devoluções of Pix paid into it still go through it.
 */
export async function removePspAccount(
  deps: { uow: UnitOfWork },
  command: PspAccountOf,
  context: MessageContext,
): Promise<{ removed: true }> {
  return deps.uow.once(context, async (tx) => {
    const account = await lockAccountInForce(tx.manager, command.business_id);
    if (!account) throw new CommandError('NOT_FOUND', 'A empresa usa a conta PSP da plataforma.');
    if (await hasOpenCharge(tx.manager, account.accountId))
      throw new CommandError('INVALID_STATUS', 'A conta PSP da empresa ainda tem cobranças PIX abertas.');
    await retireAccount(tx.manager, account.accountId);
    context.logger.info(
      { business_id: command.business_id, account_id: account.accountId },
      'PSP account retired',
    );
    return { removed: true as const };
  });
}
