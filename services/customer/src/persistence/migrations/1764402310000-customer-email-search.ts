import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** A business's customers are searched by e-mail (the address as stored), newest first. */
export class CustomerEmailSearch1764402310000 implements MigrationInterface {
  name = 'CustomerEmailSearch1764402310000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `CREATE INDEX customers_email ON ${s}.customers (business_id, email, created_at DESC, id DESC)
         WHERE email IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.customers_email`);
  }
}
