import type { MigrationInterface, QueryRunner } from 'typeorm';
import { allowChangeOnFinalRows, schemaOf } from '@gateway/persistence';

/**
 * The locations of recurrences' payloads (API Pix `locrec`): each the account's, serving one recurrence at most (a
 * recurrence's `loc_id` is unique). Unlinking (`DELETE /locrec/{id}/idRec`) "does not change the resource's status",
 * so an ended recurrence may still lose its location: `loc_id` is the one column its final row may change.
 */
export class PspLocRec1764403200700 implements MigrationInterface {
  name = 'PspLocRec1764403200700';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.locations_rec (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        pix_key text NOT NULL REFERENCES ${s}.accounts (pix_key),
        access_token text NOT NULL UNIQUE CHECK (access_token ~ '^[0-9a-f]{32}$'),
        location text NOT NULL CHECK (char_length(location) <= 77),
        criacao timestamptz NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX locations_rec_account_criacao ON ${s}.locations_rec (pix_key, criacao)`,
    );
    await queryRunner.query(
      `ALTER TABLE ${s}.recs ADD COLUMN loc_id bigint UNIQUE REFERENCES ${s}.locations_rec (id)`,
    );
    await allowChangeOnFinalRows(queryRunner, 'recs', ['loc_id']);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.recs DROP COLUMN loc_id`);
    await queryRunner.query(`DROP TABLE ${s}.locations_rec`);
  }
}
