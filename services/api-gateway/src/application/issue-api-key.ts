import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { generateApiKey, type Environment } from '../domain/api-key';
import { insertApiKey } from '../persistence';

/** A further key for the business, for rotation; its older keys stay valid until revoked. */
export async function issueApiKey(
  deps: { dataSource: DataSource; environment: Environment },
  businessId: string,
): Promise<{ apiKey: string; keyPrefix: string }> {
  const issued = generateApiKey(deps.environment, randomBytes);
  await insertApiKey(deps.dataSource.manager, { keyPrefix: issued.keyPrefix, hash: issued.hash, businessId });
  return { apiKey: issued.apiKey, keyPrefix: issued.keyPrefix };
}
