import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/** A rotated webhook keeps its replaced secret, sealed like the current one, until the overlap ends. */
export class WebhookSecretRotation1732400090000 implements MigrationInterface {
  name = 'WebhookSecretRotation1732400090000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.webhooks
         ADD COLUMN previous_secret_sealed text,
         ADD COLUMN previous_secret_until timestamptz`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${schemaOf(queryRunner)}.webhooks DROP COLUMN previous_secret_sealed, DROP COLUMN previous_secret_until`,
    );
  }
}
