import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { ApiKeyScope } from '@gateway/contracts';
import { generateApiKey, scopesToGrant, type Environment } from '../domain/api-key';
import { insertApiKey } from '../persistence';

/**
 * A further key for the business; its older keys stay valid until revoked (or rolled). Limited to the scopes asked for
 * (`read_only`: every `:read` one); none asked for: every scope.
 */
export async function issueApiKey(
  deps: { dataSource: DataSource; environment: Environment },
  businessId: string,
  requestedScopes?: readonly string[],
): Promise<{ apiKey: string; keyPrefix: string; scopes: ApiKeyScope[] | null }> {
  const issued = generateApiKey(deps.environment, randomBytes);
  const scopes = requestedScopes === undefined ? null : scopesToGrant(requestedScopes);
  await insertApiKey(deps.dataSource.manager, {
    keyPrefix: issued.keyPrefix,
    hash: issued.hash,
    businessId,
    scopes,
  });
  return { apiKey: issued.apiKey, keyPrefix: issued.keyPrefix, scopes };
}
