import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** Webhooks are listed newest first (creation time, then id), deleted ones left out: the index a page reads. */
export class WebhookPages1732400060000 implements MigrationInterface {
  name = 'WebhookPages1732400060000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(
      `CREATE INDEX webhooks_page ON ${s}.webhooks (business_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ${schemaOf(queryRunner)}.webhooks_page`);
  }
}
