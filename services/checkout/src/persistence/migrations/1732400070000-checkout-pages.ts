import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** Checkouts are listed newest first (creation time, then id): the index in the order a page reads them. */
export class CheckoutPages1732400070000 implements MigrationInterface {
  name = 'CheckoutPages1732400070000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.checkouts_business`);
    await queryRunner.query(
      `CREATE INDEX checkouts_page ON ${s}.checkouts (business_id, created_at DESC, id DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.checkouts_page`);
    await queryRunner.query(`CREATE INDEX checkouts_business ON ${s}.checkouts (business_id, created_at)`);
  }
}
