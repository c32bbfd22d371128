import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The gateway's copy of each payment it has seen (docs/adr/0042-gateway-payment-read-model.md): the record as the
 * payment service last sent it (a reply or a `payment.*` event), the rail instructions a reply carried, the record's
 * version (a copy is only ever replaced by a newer one), and whether the copy must be read again before it is answered.
 */
export class PaymentReadModel1764403200400 implements MigrationInterface {
  name = 'PaymentReadModel1764403200400';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.payment_copies (
        payment_id text PRIMARY KEY,
        business_id text NOT NULL,
        version integer NOT NULL CHECK (version >= 0),
        record jsonb NOT NULL,
        instructions jsonb,
        stored_at timestamptz NOT NULL DEFAULT now(),
        stale_below integer NOT NULL DEFAULT 0,
        stale_until timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.payment_copies`);
  }
}
