import type { GatewayAdmin } from '../clients/gateway-admin';
import type { BusinessEntity } from '../persistence';
import { findMerchantKey } from './shared/merchant-keys';

/** Revokes one of the business's keys by its prefix (it stops working within 5 s). */
export async function revokeMerchantKey(
  admin: GatewayAdmin,
  business: Pick<BusinessEntity, 'id' | 'apiKeyPrefix'>,
  keyPrefix: string,
): Promise<'revoked' | 'not_found' | 'refused'> {
  const key = await findMerchantKey(admin, business, keyPrefix);
  if (typeof key === 'string') return key;
  await admin.revokeApiKey(keyPrefix);
  return 'revoked';
}
