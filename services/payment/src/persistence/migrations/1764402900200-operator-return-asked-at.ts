import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * When the rail was last asked to carry out the operator's return of held funds (`return_asked_at`), and the
 * operator's reason for it (`return_reason`): a return still in flight long after is asked of its rail again, with the
 * same attempt id and reason, since its request or its outcome may have been lost on the way.
 */
export class OperatorReturnAskedAt1764402900200 implements MigrationInterface {
  name = 'OperatorReturnAskedAt1764402900200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.received_funds
         ADD COLUMN return_asked_at timestamptz, ADD COLUMN return_reason text`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.received_funds DROP COLUMN return_asked_at, DROP COLUMN return_reason`,
    );
  }
}
