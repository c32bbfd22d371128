import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The cycle each subscription has asked the PIX adapter to open and not yet recorded as a payment: its `cobr` may be
 * at the PSP already (the adapter's answer lost, or the payment's insert failed), so a subscription that ends meanwhile
 * is not done with it. The scheduler asks the adapter again for such a cycle and records its payment (docs/adr/0048,
 * section 2). A table of its own, since an ended subscription's row does not change: at most one ask per subscription.
 */
export class SubscriptionCycleOpening1764403201050 implements MigrationInterface {
  name = 'SubscriptionCycleOpening1764403201050';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.subscription_cycle_openings (
        subscription_id text PRIMARY KEY REFERENCES ${s}.subscriptions (id),
        cycle integer NOT NULL CHECK (cycle >= 1),
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        asked_at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX subscription_cycle_openings_asked ON ${s}.subscription_cycle_openings (asked_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.subscription_cycle_openings`);
  }
}
