import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { newPublicId } from '@gateway/contracts';
import { generateApiKey, type Environment } from '../domain/api-key';
import { insertApiKey, insertBusiness, type BusinessEntity } from '../persistence';

export interface NewBusiness {
  business: BusinessEntity;
  /** Shown once to the operator, never stored. */
  apiKey: string;
  keyPrefix: string;
}

/** Creates a business of this gateway's environment with its first API key, in one transaction. */
export async function createBusiness(
  deps: { dataSource: DataSource; environment: Environment },
  name: string,
): Promise<NewBusiness> {
  return deps.dataSource.transaction(async (manager) => {
    const business = await insertBusiness(manager, {
      id: newPublicId('biz'),
      name,
      environment: deps.environment,
    });
    const issued = generateApiKey(deps.environment, randomBytes);
    await insertApiKey(manager, { keyPrefix: issued.keyPrefix, hash: issued.hash, businessId: business.id });
    return { business, apiKey: issued.apiKey, keyPrefix: issued.keyPrefix };
  });
}
