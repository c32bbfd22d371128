import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * A refund reserves before it is created (docs/money-model.md#refunds): each reservation remembers how much it took
 * from `available` and from which payments' pending remainders, so a release gives each part back where it came
 * from. The database keeps the parts adding up to the amount, a reservation moving only forward
 * (`held` -> `confirmed` -> `released` | `spent`, or `held` -> `released` | `spent`), and what it reserved fixed.
 */
export class RefundReservations1764400300000 implements MigrationInterface {
  name = 'RefundReservations1764400300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    // The centavos of a reservation's pending parts ([{ "payment_id", "centavos" }]); -1 when a part names no payment
    // or holds nothing, which no amount can match (the parts are at most the amount).
    await queryRunner.query(`
      CREATE FUNCTION ${s}.reservation_pending_total(parts jsonb) RETURNS bigint
      LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN bool_or(part->>'payment_id' IS NULL OR (part->>'centavos')::bigint <= 0) THEN -1
                    ELSE COALESCE(SUM((part->>'centavos')::bigint), 0) END
          FROM jsonb_array_elements(parts) AS part
      $$`);
    await queryRunner.query(`
      CREATE TABLE ${s}.reservations (
        id text PRIMARY KEY,
        business_id text NOT NULL,
        payment_id text NOT NULL,
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        from_available_centavos bigint NOT NULL,
        from_pending jsonb NOT NULL CHECK (jsonb_typeof(from_pending) = 'array'),
        status text NOT NULL CHECK (status IN ('held', 'confirmed', 'released', 'spent')),
        created_at timestamptz NOT NULL DEFAULT now(),
        resolved_at timestamptz,
        CONSTRAINT reservations_available_part
          CHECK (from_available_centavos >= 0 AND from_available_centavos <= amount_centavos),
        CONSTRAINT reservations_parts_make_amount
          CHECK (amount_centavos = from_available_centavos + ${s}.reservation_pending_total(from_pending)),
        CONSTRAINT reservations_resolved_when_final
          CHECK ((status IN ('released', 'spent')) = (resolved_at IS NOT NULL))
      )`);
    // The sweep finds the reservations no refund has confirmed yet, oldest first, whatever the table holds.
    await queryRunner.query(
      `CREATE INDEX reservations_unconfirmed ON ${s}.reservations (created_at) WHERE status = 'held'`,
    );
    await queryRunner.query(`
      CREATE FUNCTION ${s}.check_reservation_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (NEW.id, NEW.business_id, NEW.payment_id, NEW.amount_centavos, NEW.from_available_centavos,
            NEW.from_pending, NEW.created_at)
           IS DISTINCT FROM (OLD.id, OLD.business_id, OLD.payment_id, OLD.amount_centavos,
            OLD.from_available_centavos, OLD.from_pending, OLD.created_at) THEN
          RAISE EXCEPTION 'reservations: what a reservation took cannot change'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF OLD.status IN ('released', 'spent') OR (OLD.status = 'confirmed' AND NEW.status = 'held') THEN
          RAISE EXCEPTION 'reservations: % -> % refused', OLD.status, NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER reservations_move_forward BEFORE UPDATE ON ${s}.reservations
      FOR EACH ROW EXECUTE FUNCTION ${s}.check_reservation_change()`);
    await queryRunner.query(`
      CREATE TRIGGER reservations_not_deleted BEFORE DELETE ON ${s}.reservations
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_book_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.reservations`);
    await queryRunner.query(`DROP FUNCTION ${s}.check_reservation_change()`);
    await queryRunner.query(`DROP FUNCTION ${s}.reservation_pending_total(jsonb)`);
  }
}
