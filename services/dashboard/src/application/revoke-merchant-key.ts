import type { GatewayAdmin } from '../clients/gateway-admin';
import type { BusinessEntity } from '../persistence';
import { listMerchantKeys } from './list-merchant-keys';

export type RevokeOutcome = 'revoked' | 'not_found' | 'refused';

/**
 * Revokes one of the business's keys by its prefix. The operator API revokes any business's key, so the prefix is
 * looked up among this business's keys first: another business's prefix is not found. The dashboard's own key is
 * refused (the dashboard would stop working for everyone in the business).
 */
export async function revokeMerchantKey(
  admin: GatewayAdmin,
  business: Pick<BusinessEntity, 'id' | 'apiKeyPrefix'>,
  keyPrefix: string,
): Promise<RevokeOutcome> {
  const key = (await listMerchantKeys(admin, business)).find(
    (candidate) => candidate.keyPrefix === keyPrefix,
  );
  if (!key) return 'not_found';
  if (key.dashboards) return 'refused';
  await admin.revokeApiKey(keyPrefix);
  return 'revoked';
}
