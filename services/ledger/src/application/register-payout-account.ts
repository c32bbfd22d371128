import { payoutAccountProblems, type PayoutAccount, type SetPayoutAccount } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { upsertPayoutAccount } from '../persistence';

/**
 * `ledger.payout-account.set.v1` (the operator's): where the business's payouts go from now on. A payout already
 * requested keeps the account it was requested with. A key not of its type's form is INVALID_FIELDS.
 */
export async function registerPayoutAccount(
  dataSource: DataSource,
  command: SetPayoutAccount,
): Promise<PayoutAccount> {
  const { business_id: businessId, ...destination } = command;
  const problems = payoutAccountProblems(destination);
  if (problems.length > 0)
    throw new CommandError('INVALID_FIELDS', `Campos inválidos: ${problems.join(', ')}.`);
  const account = await upsertPayoutAccount(dataSource.manager, businessId, destination);
  return {
    business_id: account.businessId,
    pix_key: account.pixKey,
    pix_key_type: account.pixKeyType,
    holder_document: account.holderDocument,
    updated_at: account.updatedAt.toISOString(),
  };
}
