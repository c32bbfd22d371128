import type { GatewayAdmin } from '../../clients/gateway-admin';
import type { BusinessEntity } from '../../persistence';

export interface MerchantKey {
  keyPrefix: string;
  scopes: string[] | null;
  status: 'active' | 'rolled' | 'expired' | 'revoked';
  createdAt: string;
  /** The key the dashboard itself acts with: listed, never revocable from here. */
  dashboards: boolean;
}

/** The business's API keys, newest first, as the operator API lists them (prefixes only: a key is never shown again). */
export async function merchantKeysOf(
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

/**
 * One of the business's keys by its prefix, or why not: the operator API acts on any business's key, so the prefix is
 * looked up among this business's keys first (another business's is not found), and the dashboard's own key is refused
 * (changing it would stop the dashboard for everyone in the business).
 */
export async function findMerchantKey(
  admin: GatewayAdmin,
  business: Pick<BusinessEntity, 'id' | 'apiKeyPrefix'>,
  keyPrefix: string,
): Promise<MerchantKey | 'not_found' | 'refused'> {
  const key = (await merchantKeysOf(admin, business)).find((candidate) => candidate.keyPrefix === keyPrefix);
  if (!key) return 'not_found';
  return key.dashboards ? 'refused' : key;
}
