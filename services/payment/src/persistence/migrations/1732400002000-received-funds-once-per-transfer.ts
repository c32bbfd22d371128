import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * One rail transfer is recorded at most once per payment, whatever its kind: a partial PIX learnt from the charge's
 * closure and the same PIX reported again later as late must not count the money twice.
 */
export class ReceivedFundsOncePerTransfer1732400002000 implements MigrationInterface {
  name = 'ReceivedFundsOncePerTransfer1732400002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    // A transfer recorded under two kinds before this rule is the same money: the first record stands.
    await queryRunner.query(`
      DELETE FROM ${s}.received_funds later
       USING ${s}.received_funds earlier
       WHERE later.payment_id = earlier.payment_id
         AND later.rail_reference = earlier.rail_reference
         AND later.id > earlier.id`);
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds DROP CONSTRAINT received_funds_payment_id_kind_rail_reference_key`,
    );
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds ADD CONSTRAINT received_funds_once_per_transfer
         UNIQUE (payment_id, rail_reference)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `ALTER TABLE ${s}.received_funds DROP CONSTRAINT received_funds_once_per_transfer`,
    );
    await queryRunner.query(`ALTER TABLE ${s}.received_funds ADD UNIQUE (payment_id, kind, rail_reference)`);
  }
}
