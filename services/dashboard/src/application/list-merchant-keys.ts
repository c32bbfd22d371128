import type { GatewayAdmin } from '../clients/gateway-admin';
import type { BusinessEntity } from '../persistence';

export interface MerchantKey {
  keyPrefix: string;
  scopes: string[] | null;
  status: 'active' | 'rolled' | 'expired' | 'revoked';
  createdAt: string;
  /** The key the dashboard itself acts with: listed, never revocable from here. */
  dashboards: boolean;
}

/** The business's API keys, newest first, as the operator API lists them (prefixes only: a key is never shown again). */
export async function listMerchantKeys(
  admin: GatewayAdmin,
  business: Pick<BusinessEntity, 'id' | 'apiKeyPrefix'>,
): Promise<MerchantKey[]> {
  const found = await admin.getBusiness(business.id);
  return found.api_keys.map((key) => ({
    keyPrefix: key.key_prefix,
    scopes: key.scopes,
    status: key.status,
    createdAt: key.created_at,
    dashboards: key.key_prefix === business.apiKeyPrefix,
  }));
}
