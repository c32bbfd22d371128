import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The W3C trace context of the event a delivery is for (the payment's trace), set when the delivery is made: every
 * attempt, retries and redeliveries asked for by the merchant alike, is a span in that trace. A delivery made before
 * has none, and its attempts start traces of their own.
 */
export class DeliveryTraceContext1732400173000 implements MigrationInterface {
  name = 'DeliveryTraceContext1732400173000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.deliveries ADD COLUMN trace_context jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ${schemaOf(queryRunner)}.deliveries DROP COLUMN trace_context`);
  }
}
