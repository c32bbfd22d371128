import { createTestDatabase, uniquePrefix, type TestDatabase } from './isolation';
import { infrastructureUrls } from './infrastructure';

export interface IsolatedEnvironment {
  database: TestDatabase;
  /** Connection settings shaped like every service's config. */
  config: {
    APP_ENV: 'sandbox';
    LOG_LEVEL: string;
    DATABASE_URL: string;
    AMQP_URL: string;
    AMQP_PREFIX: string;
    REDIS_URL: string;
    REDIS_PREFIX: string;
    METRICS_HOST: string;
  };
}

/**
 * A private database, broker prefix and Redis prefix for one test file's services. `APP_ENV` is set explicitly: a
 * service's default is production, which refuses every development default.
 */
export async function isolatedEnvironment(label = 't'): Promise<IsolatedEnvironment> {
  const database = await createTestDatabase();
  const prefix = uniquePrefix(label);
  const urls = infrastructureUrls();
  return {
    database,
    config: {
      APP_ENV: 'sandbox',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATABASE_URL: database.url,
      AMQP_URL: urls.amqpUrl,
      AMQP_PREFIX: prefix,
      REDIS_URL: urls.redisUrl,
      REDIS_PREFIX: prefix,
      METRICS_HOST: '127.0.0.1',
    },
  };
}
