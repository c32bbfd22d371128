import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The W3C trace context of the payment's creation, kept with its transfer requests: a transfer found on chain later is
 * processed in that trace. Set once when a request is stored (an amount change's request keeps the payment's); a
 * request stored before has none, and its transfers start a trace of their own.
 */
export class RequestTraceContext1732400172000 implements MigrationInterface {
  name = 'RequestTraceContext1732400172000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.payment_requests ADD COLUMN trace_context jsonb`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.payment_requests DROP COLUMN trace_context`,
    );
  }
}
