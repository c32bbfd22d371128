import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The W3C trace context of the payment's creation, kept with its charge: the PIX that pays it later (reported by a PSP
 * callback or found by a poll) is processed in that trace. Set once when the charge is opened; a charge opened before
 * has none, and its PIX starts a trace of its own.
 */
export class ChargeTraceContext1732400171000 implements MigrationInterface {
  name = 'ChargeTraceContext1732400171000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.charges ADD COLUMN trace_context jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.charges DROP COLUMN trace_context`);
  }
}
