import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The events of one payment (its own and its refunds'), for `GET /v1/events?payment_id=`: each event keeps the payment
 * it is about (null for a payout's), filled in for the events kept already from their bodies, and listed through an
 * index of the business's events by payment, so a payment's timeline costs one index range however many events the
 * business has.
 */
export class EventsByPayment1764402100000 implements MigrationInterface {
  name = 'EventsByPayment1764402100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.events ADD COLUMN payment_id text`);
    await queryRunner.query(
      `UPDATE ${s}.events SET payment_id = body::jsonb -> 'data' ->> 'payment_id'
       WHERE body::jsonb -> 'data' ->> 'payment_id' IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX events_page_by_payment ON ${s}.events (business_id, payment_id, created_at DESC, id DESC)
       WHERE payment_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP INDEX ${s}.events_page_by_payment`);
    await queryRunner.query(`ALTER TABLE ${s}.events DROP COLUMN payment_id`);
  }
}
