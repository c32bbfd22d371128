import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { isolatedEnvironment, testLogger, type IsolatedEnvironment } from '@gateway/testkit';
import { markDashboardKeys } from '../src/application/mark-dashboard-keys';
import { OperatorApiError, type GatewayAdmin } from '../src/clients/gateway-admin';
import { dashboardDatabase, findBusiness, insertBusiness } from '../src/persistence';

/** Businesses signed up before keys had a purpose: their keys are marked as the dashboard's once, when it starts. */
describe('marking the dashboard keys', () => {
  let env: IsolatedEnvironment;
  let database: DataSource;

  beforeAll(async () => {
    env = await isolatedEnvironment('dashboard');
    database = await openServiceDatabase({ url: env.database.url, ...dashboardDatabase });
  });
  afterAll(async () => {
    await database.destroy();
    await env.database.drop();
  });

  const business = async (marked?: boolean): Promise<{ id: string; prefix: string }> => {
    const suffix = randomBytes(6).toString('hex');
    await insertBusiness(database.manager, {
      id: `biz_${suffix}`,
      name: 'Loja',
      environment: 'sandbox',
      timeZone: 'America/Sao_Paulo',
      sealedApiKey: 'v1:sealed',
      apiKeyPrefix: suffix,
      ...(marked === undefined ? {} : { apiKeyMarked: marked }),
    });
    return { id: `biz_${suffix}`, prefix: suffix };
  };

  /** The operator API as the dashboard calls it: records the keys it is asked to mark, refusing those in `refuse`. */
  const operatorApi = (refuse: Set<string> = new Set()) => {
    const asked: string[] = [];
    const admin = {
      setApiKeyPurpose: async (keyPrefix: string, purpose: string) => {
        asked.push(`${keyPrefix}:${purpose}`);
        if (refuse.has(keyPrefix)) throw new OperatorApiError(429, 'RATE_LIMITED', 'Muitas requisições');
        return { key_prefix: keyPrefix, purpose };
      },
    } as unknown as GatewayAdmin;
    return { admin, asked };
  };

  test('an existing business key is marked once; one marked at sign-up is never asked about', async () => {
    const old = await business();
    const signedUp = await business(true);
    const { admin, asked } = operatorApi();
    const logger = testLogger('mark-keys');
    expect(await markDashboardKeys({ dataSource: database, admin, logger })).toBeGreaterThanOrEqual(1);
    expect(asked).toContain(`${old.prefix}:dashboard`);
    expect(asked).not.toContain(`${signedUp.prefix}:dashboard`);
    expect((await findBusiness(database.manager, old.id))?.apiKeyMarked).toBe(true);

    const again = operatorApi();
    await markDashboardKeys({ dataSource: database, admin: again.admin, logger });
    expect(again.asked).not.toContain(`${old.prefix}:dashboard`);
  });

  test('a refusal leaves the key for the next start, unmarked', async () => {
    const refused = await business();
    const { admin } = operatorApi(new Set([refused.prefix]));
    const logger = testLogger('mark-keys');
    await markDashboardKeys({ dataSource: database, admin, logger });
    expect((await findBusiness(database.manager, refused.id))?.apiKeyMarked).toBe(false);

    const later = operatorApi();
    await markDashboardKeys({ dataSource: database, admin: later.admin, logger });
    expect(later.asked).toContain(`${refused.prefix}:dashboard`);
    expect((await findBusiness(database.manager, refused.id))?.apiKeyMarked).toBe(true);
  });
});
