import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

export class Webhooks1732300006000 implements MigrationInterface {
  name = 'Webhooks1732300006000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.webhooks (
        id text PRIMARY KEY,
        business_id text NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'inactive')),
        secret_sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX webhooks_subscribers ON ${s}.webhooks (business_id) WHERE status = 'active' AND deleted_at IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.deliveries (
        id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        webhook_id text NOT NULL REFERENCES ${s}.webhooks (id),
        event_id text NOT NULL,
        event_type text NOT NULL,
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'dead', 'cancelled')),
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        lease_owner text,
        lease_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT deliveries_one_per_event UNIQUE (webhook_id, event_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX deliveries_due ON ${s}.deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
    await queryRunner.query(`CREATE INDEX deliveries_by_webhook ON ${s}.deliveries (webhook_id, seq DESC)`);
    await queryRunner.query(`
      CREATE TABLE ${s}.delivery_attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id text NOT NULL REFERENCES ${s}.deliveries (id),
        attempted_at timestamptz NOT NULL,
        worker_id text NOT NULL,
        status_code integer,
        latency_ms integer NOT NULL,
        response_body text,
        error text
      )`);
    await queryRunner.query(
      `CREATE INDEX delivery_attempts_by_delivery ON ${s}.delivery_attempts (delivery_id, id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.delivery_attempts`);
    await queryRunner.query(`DROP TABLE ${s}.deliveries`);
    await queryRunner.query(`DROP TABLE ${s}.webhooks`);
  }
}
