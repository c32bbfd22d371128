import type { DataSource } from 'typeorm';
import type { GatewayAdmin } from '../clients/gateway-admin';
import { pixKeyHint, type PayoutAccountForm } from '../domain/payout-forms';
import { savePayoutAccount, type BusinessEntity } from '../persistence';

/**
 * Sets where the business's payouts go, through the gateway's operator API (which checks the key against its type
 * and answers what is wrong), and keeps what the pages show of it: its type and last four characters, who set it and
 * when. The caller has checked the person's role and second factor.
 */
export async function setPayoutAccount(
  deps: { admin: GatewayAdmin; dataSource: DataSource },
  business: Pick<BusinessEntity, 'id'>,
  userId: string,
  form: PayoutAccountForm,
): Promise<void> {
  const account = await deps.admin.setPayoutAccount(business.id, form);
  await savePayoutAccount(deps.dataSource.manager, {
    businessId: business.id,
    pixKeyType: account.pix_key_type,
    pixKeyHint: pixKeyHint(account.pix_key),
    updatedBy: userId,
    updatedAt: new Date(account.updated_at),
  });
}
