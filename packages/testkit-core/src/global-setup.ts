import { ensureStackCompiled } from './compiled-stack';
import { dockerAvailable } from './infrastructure';

/**
 * Jest global setup: compiles the stack's processes (`pnpm build`), which the test stacks run, so a run never starts a
 * stale build; then, with a Docker engine, starts throwaway Postgres, Redis and RabbitMQ containers and points every
 * test worker at them; without one, the tests use this machine's local services (the CI case here).
 */
export default async function globalSetup(): Promise<void> {
  ensureStackCompiled(true);
  if (!dockerAvailable() || process.env.TEST_DATABASE_URL) return;
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const { RedisContainer } = await import('@testcontainers/redis');
  const { RabbitMQContainer } = await import('@testcontainers/rabbitmq');
  let containers;
  try {
    containers = await Promise.all([
      new PostgreSqlContainer('postgres:15-alpine').withUsername('postgres').withPassword('postgres').start(),
      new RedisContainer('redis:7-alpine').start(),
      new RabbitMQContainer('rabbitmq:3.10-alpine').start(),
    ]);
  } catch (err) {
    // A socket without a working engine (or no image registry): the local services are the fallback.
    process.stderr.write(`testcontainers unavailable (${String(err)}); using the local services\n`);
    return;
  }
  const [postgres, redis, rabbit] = containers;
  process.env.TEST_DATABASE_URL = postgres.getConnectionUri();
  process.env.TEST_REDIS_URL = redis.getConnectionUrl();
  process.env.TEST_AMQP_URL = rabbit.getAmqpUrl();
  // Ryuk (the testcontainers reaper) removes the containers when the jest process exits.
}
