import type { QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The outbox of a service that serves an event log (the payment service, the ledger: each runs this in a migration
 * of its own) records when each row was inserted, by the clock at the insert (`clock_timestamp()`), not its
 * transaction's start (`created_at`): the log answers a row only once every transaction that could still commit a
 * lower position is over (`readEventLog`). Added without a default first, so the table is not rewritten: rows already
 * there keep NULL, and were all committed when this ran (the ALTER waits for every transaction that wrote the outbox).
 * The column comes after `seq`, so an insert evaluates it after taking its position.
 */
export async function addOutboxInsertedAt(queryRunner: QueryRunner): Promise<void> {
  const s = schemaOf(queryRunner);
  await queryRunner.query(`ALTER TABLE ${s}.outbox ADD COLUMN inserted_at timestamptz`);
  await queryRunner.query(`ALTER TABLE ${s}.outbox ALTER COLUMN inserted_at SET DEFAULT clock_timestamp()`);
}

export async function dropOutboxInsertedAt(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.outbox DROP COLUMN inserted_at`);
}
