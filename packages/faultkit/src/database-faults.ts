import { Client } from 'pg';
import { letTimePass } from '@gateway/testkit-core';
import type { DatabaseProxy } from './database-proxy';

/**
 * Faults of one test database on the shared PostgreSQL cluster: only that database's backends are terminated and
 * only it refuses connections, so other tests on the cluster never notice.
 */
export class DatabaseFaults {
  constructor(
    /** postgres://... of the test database (direct, not through the proxy). */
    private readonly databaseUrl: string,
    /** The services reach the database through it. */
    private readonly proxy: DatabaseProxy,
  ) {}

  private get name(): string {
    return decodeURIComponent(new URL(this.databaseUrl).pathname.slice(1));
  }

  /**
   * Terminates the backends of one service (the launcher names each connection after its process) and refuses its
   * new connections for `ms`, while every other service keeps the database.
   */
  async cutOff(service: string, ms: number): Promise<void> {
    this.proxy.disconnect(service);
    try {
      await this.terminate('AND application_name = $2', [service]);
      await letTimePass(ms);
    } finally {
      this.proxy.reconnect(service);
    }
  }

  /**
   * The database refuses every connection for `ms` (existing backends terminated, new ones refused), then accepts
   * them again, whatever happens meanwhile.
   */
  async refuseConnections(ms: number): Promise<void> {
    await this.admin(`ALTER DATABASE "${this.name}" ALLOW_CONNECTIONS false`);
    try {
      await this.terminate('', []);
      await letTimePass(ms);
    } finally {
      await this.admin(`ALTER DATABASE "${this.name}" ALLOW_CONNECTIONS true`);
    }
  }

  private async terminate(condition: string, params: string[]): Promise<number> {
    const result = await this.admin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = $1 AND pid <> pg_backend_pid() ${condition}`,
      [this.name, ...params],
    );
    return result.rowCount ?? 0;
  }

  private async admin(sql: string, params: string[] = []) {
    const url = new URL(this.databaseUrl);
    url.pathname = '/postgres';
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return await client.query(sql, params);
    } finally {
      await client.end();
    }
  }
}
