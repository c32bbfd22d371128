import type { DataSource } from 'typeorm';
import type { Logger } from '@gateway/observability';
import type { GatewayAdmin } from '../clients/gateway-admin';
import { businessesWithUnmarkedKey, markBusinessKey } from '../persistence';

/** How many keys one start marks at most (the operator API is rate limited per caller too). */
const MARK_BATCH = 20;

/**
 * Tells the gateway, through the operator API, which keys are the dashboard's own, for businesses signed up before
 * keys had a purpose (their keys work all along; marked, they get the dashboard's rate limit). Stops at the first
 * refusal or failure, leaving the rest for the next start; resolves how many were marked.
 */
export async function markDashboardKeys(deps: {
  dataSource: DataSource;
  admin: GatewayAdmin;
  logger: Logger;
}): Promise<number> {
  const pending = await businessesWithUnmarkedKey(deps.dataSource.manager, MARK_BATCH);
  let marked = 0;
  for (const business of pending) {
    try {
      await deps.admin.setApiKeyPurpose(business.apiKeyPrefix, 'dashboard');
    } catch (err) {
      deps.logger.warn({ err: String(err), businessId: business.id }, 'dashboard key not marked yet');
      break;
    }
    await markBusinessKey(deps.dataSource.manager, business.id);
    marked += 1;
  }
  return marked;
}
