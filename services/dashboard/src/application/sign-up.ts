import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { GatewayAdmin } from '../clients/gateway-admin';
import type { BusinessApi } from '../clients/business-api';
import { DEFAULT_TIME_ZONE } from '../domain/format';
import { hashPassword, PASSWORD_SALT_BYTES } from '../domain/password';
import type { SignUpForm } from '../domain/sign-up-form';
import { newId } from '../domain/ids';
import { findUserByEmail, insertBusiness, insertMembership, insertUser } from '../persistence';

export interface SignUpDeps {
  dataSource: DataSource;
  admin: GatewayAdmin;
  api: BusinessApi;
}

export type SignUpOutcome =
  | { kind: 'email_taken' }
  | { kind: 'created'; userId: string; businessId: string; apiKey: string; keyPrefix: string };

/**
 * A new business and its owner: the business is created by the operator API (so it gets what every business gets:
 * its environment, the deployment's default fee rules, applied at its first payment by each method), with a first key
 * the dashboard keeps sealed to act for it (marked as the dashboard's, so it has the dashboard's own rate limit); a second key is issued for the merchant, shown once on the next page.
 */
export async function signUp(deps: SignUpDeps, form: SignUpForm): Promise<SignUpOutcome> {
  if (await findUserByEmail(deps.dataSource.manager, form.email)) return { kind: 'email_taken' };
  const passwordHash = await hashPassword(form.password, randomBytes(PASSWORD_SALT_BYTES));
  // Its first key is the dashboard's own: the gateway counts it against the dashboard's rate limit.
  const business = await deps.admin.createBusiness(form.companyName, 'dashboard');
  const merchantKey = await deps.admin.issueApiKey(business.business_id);
  const userId = newId('usr', randomBytes);
  try {
    await deps.dataSource.transaction(async (manager) => {
      await insertUser(manager, { id: userId, email: form.email, passwordHash });
      await insertBusiness(manager, {
        id: business.business_id,
        name: business.name,
        environment: business.environment,
        timeZone: DEFAULT_TIME_ZONE,
        sealedApiKey: deps.api.seal(business.api_key),
        apiKeyPrefix: business.key_prefix,
        apiKeyMarked: business.key_purpose === 'dashboard',
      });
      await insertMembership(manager, { userId, businessId: business.business_id, role: 'owner' });
    });
  } catch (err) {
    // The same address signed up at the same moment: the other sign-up won; this business keeps no member.
    if ((err as { code?: string }).code === '23505') return { kind: 'email_taken' };
    throw err;
  }
  return {
    kind: 'created',
    userId,
    businessId: business.business_id,
    apiKey: merchantKey.api_key,
    keyPrefix: merchantKey.key_prefix,
  };
}
