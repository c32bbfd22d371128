import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The failure a PSP callback told of a payout's send (`gnExtras.erro`: `{code, origin, reason}`), kept on the payout
 * while it is open: Efí's reads of a send do not repeat it, so a send failed by a callback and settled later by the
 * poll (after a restart, or a read that failed at first) still fails with the PSP's reason.
 */
export class PayoutReportedFailures1764400600000 implements MigrationInterface {
  name = 'PayoutReportedFailures1764400600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE ${schemaOf(queryRunner)}.payouts ADD COLUMN reported_failure jsonb
        CONSTRAINT payouts_reported_failure_shape CHECK (
          reported_failure IS NULL OR (
            jsonb_typeof(reported_failure->'code') = 'string'
            AND jsonb_typeof(reported_failure->'origin') = 'string'
            AND jsonb_typeof(reported_failure->'reason') = 'string'
            AND octet_length(reported_failure::text) <= 2000))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.payouts DROP COLUMN reported_failure`);
  }
}
