import { existsSync } from 'node:fs';

export interface InfrastructureUrls {
  databaseUrl: string;
  redisUrl: string;
  amqpUrl: string;
}

/** Where tests find Postgres, Redis and RabbitMQ: set by the global setup (containers) or this machine's services. */
export function infrastructureUrls(): InfrastructureUrls {
  return {
    databaseUrl:
      process.env.TEST_DATABASE_URL ??
      process.env.DATABASE_URL ??
      'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    amqpUrl: process.env.TEST_AMQP_URL ?? process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
  };
}

/** A Docker engine is reachable when DOCKER_HOST is set or the default socket exists. */
export function dockerAvailable(): boolean {
  if (process.env.TESTCONTAINERS === 'off') return false;
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}
