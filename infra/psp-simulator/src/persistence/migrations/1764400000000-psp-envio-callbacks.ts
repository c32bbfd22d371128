import type { MigrationInterface, QueryRunner } from 'typeorm';
import { allowChangeOnFinalRows, schemaOf } from '@gateway/persistence';

/**
 * The callback of a settled envio is owed until the payer key's webhook accepts it, also across a restart (Efí keeps
 * trying for a long while): `notified_at` once accepted, `callback_attempts` so a restart goes on with the schedule
 * where it stopped. Both may change on a settled (final) row; nothing else of it may.
 */
export class PspEnvioCallbacks1764400000000 implements MigrationInterface {
  name = 'PspEnvioCallbacks1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.envios
      ADD COLUMN notified_at timestamptz,
      ADD COLUMN callback_attempts integer NOT NULL DEFAULT 0 CHECK (callback_attempts >= 0)`);
    await queryRunner.query(`
      CREATE INDEX envios_callback_owed ON ${s}.envios (pagador_chave)
        WHERE status <> 'EM_PROCESSAMENTO' AND notified_at IS NULL`);
    await allowChangeOnFinalRows(queryRunner, 'envios', ['notified_at', 'callback_attempts']);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.envios_callback_owed`);
    await queryRunner.query(`ALTER TABLE ${s}.envios DROP COLUMN notified_at, DROP COLUMN callback_attempts`);
  }
}
