import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The books learn of received funds with their value in BRL (`valued_centavos`: the PIX amount, or a token amount at
 * the quote locked for its payment; null when not known: nothing was booked, so it cannot be assigned).
 *
 * The operator may assign held received funds to a payment's business (the books move them from suspense to the
 * business): `assigned_payment_id` names that payment, `assigned_at` when. The database keeps assigned money apart
 * from returned money whatever code path writes:
 * - assigned funds are never returned (by hand or by a refund) and returned funds never assigned: a record is one or
 *   the other, and an assignment is set once and never changes;
 * - funds whose amount is not known (`unreadable`) are never assigned;
 * - money one transfer instruction sent naming several payments (kept by each) is returned or assigned through one of
 *   its records only;
 * - a refund carries only its payment's excess still held: neither returned nor assigned (a refund returns at most
 *   what was attributed to the payment).
 */
export class ReceivedFundsAssigned1764400400001 implements MigrationInterface {
  name = 'ReceivedFundsAssigned1764400400001';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.received_funds
        ADD COLUMN valued_centavos bigint CONSTRAINT received_funds_valued_positive CHECK (valued_centavos > 0),
        ADD COLUMN assigned_payment_id text REFERENCES ${s}.payments (id),
        ADD COLUMN assigned_at timestamptz,
        ADD CONSTRAINT received_funds_assigned_dated CHECK ((assigned_payment_id IS NULL) = (assigned_at IS NULL)),
        ADD CONSTRAINT received_funds_assigned_or_returned CHECK (assigned_at IS NULL OR returned_by IS NULL),
        ADD CONSTRAINT received_funds_unreadable_unassigned CHECK (kind <> 'unreadable' OR assigned_at IS NULL),
        ADD CONSTRAINT received_funds_assigned_valued CHECK (assigned_at IS NULL OR valued_centavos IS NOT NULL)`);

    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_assignment_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.valued_centavos IS NOT NULL AND NEW.valued_centavos IS DISTINCT FROM OLD.valued_centavos THEN
          RAISE EXCEPTION 'received_funds: the value of % was told the books already', OLD.funds_id
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF OLD.assigned_at IS NOT NULL
           AND (NEW.assigned_payment_id, NEW.assigned_at) IS DISTINCT FROM (OLD.assigned_payment_id, OLD.assigned_at) THEN
          RAISE EXCEPTION 'received_funds: % was assigned already', OLD.funds_id
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER received_funds_assigned_once BEFORE UPDATE ON ${s}.received_funds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_assignment_change()`);

    // One instruction's money leaves its records once: returned or assigned, through one of them.
    await queryRunner.query(`DROP INDEX ${s}.received_funds_instruction_returned_once`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX received_funds_instruction_settled_once ON ${s}.received_funds
         (rail, rail_reference, instruction)
         WHERE (returned_by IS NOT NULL OR assigned_at IS NOT NULL) AND instruction <> ''`,
    );

    await this.refundCarries(queryRunner, `AND f.returned_by IS NULL AND f.assigned_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await this.refundCarries(queryRunner, `AND f.returned_by IS NULL`);
    await queryRunner.query(`DROP INDEX ${s}.received_funds_instruction_settled_once`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX received_funds_instruction_returned_once ON ${s}.received_funds
         (rail, rail_reference, instruction) WHERE returned_by IS NOT NULL AND instruction <> ''`,
    );
    await queryRunner.query(`DROP TRIGGER received_funds_assigned_once ON ${s}.received_funds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_assignment_change()`);
    await queryRunner.query(`
      ALTER TABLE ${s}.received_funds
        DROP CONSTRAINT received_funds_assigned_valued,
        DROP CONSTRAINT received_funds_unreadable_unassigned,
        DROP CONSTRAINT received_funds_assigned_or_returned,
        DROP CONSTRAINT received_funds_assigned_dated,
        DROP COLUMN assigned_at,
        DROP COLUMN assigned_payment_id,
        DROP COLUMN valued_centavos`);
  }

  /** A refund names at its creation the excess it carries: its payment's, and still held (`held`). */
  private async refundCarries(queryRunner: QueryRunner, held: string): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ${s}.refuse_refund_of_unheld_funds() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (
             SELECT 1 FROM ${s}.received_funds f
              WHERE f.funds_id = NEW.returned_funds_id AND f.payment_id = NEW.payment_id
                AND f.kind = 'excess' ${held}) THEN
          RAISE EXCEPTION 'refunds: a refund carries only its payment''s excess still held, not %', NEW.returned_funds_id
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
  }
}
