import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A business's payments are listed a page at a time, newest first (creation time, then id), optionally by status: one
 * index for each, in the order a page reads them, so a page costs the same at a million payments as at ten.
 */
export class PaymentPages1732400041000 implements MigrationInterface {
  // Released as 1732400040000, the timestamp of the outbox's claims migration too: one name per timestamp now.
  static readonly formerName = 'PaymentPages1732400040000';
  name = 'PaymentPages1732400041000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.payments_business`);
    await queryRunner.query(
      `CREATE INDEX payments_page ON ${s}.payments (business_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX payments_page_by_status ON ${s}.payments (business_id, status, created_at DESC, id DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.payments_page_by_status`);
    await queryRunner.query(`DROP INDEX ${s}.payments_page`);
    await queryRunner.query(`CREATE INDEX payments_business ON ${s}.payments (business_id, created_at)`);
  }
}
