import type { GatewayAdmin } from '../clients/gateway-admin';
import type { BusinessEntity } from '../persistence';
import { findMerchantKey } from './shared/merchant-keys';

/** A key's successor with the same scopes, shown once; the old key works on until `previousExpiresAt`. */
export interface RolledKey {
  apiKey: string;
  previousExpiresAt: string;
}

/**
 * Rolls one of the business's active keys by its prefix, with the operator API's default overlap (a day). A key that is
 * not active is refused.
 */
export async function rollMerchantKey(
  admin: GatewayAdmin,
  business: Pick<BusinessEntity, 'id' | 'apiKeyPrefix'>,
  keyPrefix: string,
): Promise<RolledKey | 'not_found' | 'refused'> {
  const key = await findMerchantKey(admin, business, keyPrefix);
  if (typeof key === 'string') return key;
  if (key.status !== 'active') return 'refused';
  const rolled = await admin.rollApiKey(keyPrefix);
  return { apiKey: rolled.api_key, previousExpiresAt: rolled.previous_key_expires_at };
}
