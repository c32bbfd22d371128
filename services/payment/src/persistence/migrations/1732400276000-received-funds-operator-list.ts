import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The operator lists received funds across every payment, newest first, mostly of one kind (`unreadable`: what the
 * watcher could not read yet): an index in that order, per kind, so the list never scans the whole table.
 */
export class ReceivedFundsOperatorList1732400276000 implements MigrationInterface {
  name = 'ReceivedFundsOperatorList1732400276000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `CREATE INDEX received_funds_kind_page ON ${s}.received_funds (kind, recorded_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX received_funds_every_page ON ${s}.received_funds (recorded_at DESC, id DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.received_funds_every_page`);
    await queryRunner.query(`DROP INDEX ${s}.received_funds_kind_page`);
  }
}
