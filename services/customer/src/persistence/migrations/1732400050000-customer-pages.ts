import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** Customers are listed newest first (creation time, then id): the index in the order a page reads them. */
export class CustomerPages1732400050000 implements MigrationInterface {
  name = 'CustomerPages1732400050000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.customers_business`);
    await queryRunner.query(
      `CREATE INDEX customers_page ON ${s}.customers (business_id, created_at DESC, id DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.customers_page`);
    await queryRunner.query(`CREATE INDEX customers_business ON ${s}.customers (business_id, created_at)`);
  }
}
