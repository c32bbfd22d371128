import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** The role the service serves as (persistence/runtime-role.ts), named here as it was when this ran. */
const ROLE = 'ledger_runtime';

/** Rows the service changes: a balance with its entries, a settlement, a reservation, a payout, money in suspense... */
const UPDATED = [
  'balances',
  'settlements',
  'reservations',
  'payouts',
  'payout_accounts',
  'suspense_funds',
  'disputes',
  'outbox',
  'inbox',
];

/** Rows the service removes: messages published or handled long ago (the outbox relay's purge). */
const DELETED = ['outbox', 'inbox'];

/**
 * The service serves as `ledger_runtime`, a role that owns nothing (docs/operating.md#the-ledgers-database-roles): it
 * may read and add rows to every table of the schema, change only the rows the service changes, remove only the
 * messages the outbox relay purges, and never update, delete or truncate a journal, an entry or a balance transaction
 * (but set a settled balance transaction's status), create anything, or disable or drop a trigger. Every table and
 * sequence made later by the owner (who runs the migrations) gets the same read and add by default; a table whose rows
 * the service changes grants UPDATE in its own migration (`runtime-role.int.test.ts` checks every table's grants).
 */
export class RuntimeRole1764402000000 implements MigrationInterface {
  name = 'RuntimeRole1764402000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    const [found] = (await queryRunner.query('SELECT 1 AS found FROM pg_roles WHERE rolname = $1', [
      ROLE,
    ])) as Array<{ found: number }>;
    if (!found)
      throw new Error(
        `role ${ROLE} does not exist: create it before migrating the ledger (docs/operating.md#the-ledgers-database-roles)`,
      );
    await queryRunner.query(`GRANT USAGE ON SCHEMA ${s} TO ${ROLE}`);
    await queryRunner.query(`GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA ${s} TO ${ROLE}`);
    await queryRunner.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO ${ROLE}`);
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT SELECT, INSERT ON TABLES TO ${ROLE}`,
    );
    await queryRunner.query(
      `ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT USAGE, SELECT ON SEQUENCES TO ${ROLE}`,
    );
    // The migrations run are read (a start refuses a schema not migrated), never written.
    await queryRunner.query(`REVOKE INSERT ON ${s}.migrations FROM ${ROLE}`);
    await queryRunner.query(`GRANT UPDATE ON ${UPDATED.map((t) => `${s}.${t}`).join(', ')} TO ${ROLE}`);
    await queryRunner.query(`GRANT DELETE ON ${DELETED.map((t) => `${s}.${t}`).join(', ')} TO ${ROLE}`);
    // The settlement sweep makes a pending balance transaction available; its trigger allows that change and no other.
    await queryRunner.query(`GRANT UPDATE (status) ON ${s}.balance_transactions TO ${ROLE}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} REVOKE ALL ON SEQUENCES FROM ${ROLE}`);
    await queryRunner.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} REVOKE ALL ON TABLES FROM ${ROLE}`);
    await queryRunner.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${s} FROM ${ROLE}`);
    await queryRunner.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${s} FROM ${ROLE}`);
    await queryRunner.query(`REVOKE UPDATE (status) ON ${s}.balance_transactions FROM ${ROLE}`);
    await queryRunner.query(`REVOKE USAGE ON SCHEMA ${s} FROM ${ROLE}`);
  }
}
