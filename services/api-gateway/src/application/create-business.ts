import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { newPublicId } from '@gateway/contracts';
import { generateApiKey, type ApiKeyPurpose, type Environment } from '../domain/api-key';
import { insertApiKey, insertBusiness, type BusinessEntity } from '../persistence';

export interface NewBusiness {
  business: BusinessEntity;
  /** Shown once to the operator, never stored. */
  apiKey: string;
  keyPrefix: string;
}

/**
 * Creates a business of this gateway's environment with its first API key, in one transaction; the key is for
 * `keyPurpose` (the merchant dashboard asks for its own key this way).
 */
export async function createBusiness(
  deps: { dataSource: DataSource; environment: Environment },
  name: string,
  keyPurpose: ApiKeyPurpose = 'merchant',
): Promise<NewBusiness> {
  return deps.dataSource.transaction(async (manager) => {
    const business = await insertBusiness(manager, {
      id: newPublicId('biz'),
      name,
      environment: deps.environment,
    });
    const issued = generateApiKey(deps.environment, randomBytes);
    await insertApiKey(manager, {
      keyPrefix: issued.keyPrefix,
      hash: issued.hash,
      businessId: business.id,
      purpose: keyPurpose,
    });
    return { business, apiKey: issued.apiKey, keyPrefix: issued.keyPrefix };
  });
}
