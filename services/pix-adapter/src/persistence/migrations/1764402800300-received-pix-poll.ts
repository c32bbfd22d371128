import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The overdue-callback pass reads the PSP's list of received Pix by period (`GET /pix?inicio=&fim=`) instead of each
 * open charge alone. One row says how far the list has been read (`polled_until`), which replica holds the pass now
 * (`leased_by` until `leased_until`: one at a time, so replicas share one request budget), and how many requests the pass made at the
 * PSP in the current minute (`window_started_at`, `window_requests`).
 */
export class ReceivedPixPoll1764402800300 implements MigrationInterface {
  name = 'ReceivedPixPoll1764402800300';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.received_pix_poll (
        id smallint PRIMARY KEY CHECK (id = 1),
        polled_until timestamptz,
        leased_by uuid,
        leased_until timestamptz NOT NULL DEFAULT '-infinity',
        window_started_at timestamptz NOT NULL DEFAULT '-infinity',
        window_requests integer NOT NULL DEFAULT 0 CHECK (window_requests >= 0)
      )`);
    await queryRunner.query(`INSERT INTO ${s}.received_pix_poll (id) VALUES (1)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ${schemaOf(queryRunner)}.received_pix_poll`);
  }
}
