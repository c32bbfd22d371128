import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * The operator sends held received funds back to their payer through the rail (docs/money-model.md#suspense). The
 * record is then `returned_by` `operator`: returning while the rail carries it out (`returned_at` null), returned once
 * the rail confirmed (`returned_at`, `return_reference`: the devolução id or signature), or held again when the rail
 * failed (`returned_by` null, `return_failure_reason` kept for the operator). Each attempt has its id (`return_id`,
 * counted by `return_attempts`), from which the rail derives its own: a retry of one attempt meets the same return at
 * the rail, a new attempt after a failure is a new one.
 *
 * The database keeps it with every other way money leaves: the same row update takes it from `held` (so an
 * assignment, a return by hand, a refund carrying it and the operator's return race on the row and one wins); the
 * existing checks still refuse a record both assigned and returned and one instruction's money returned or assigned
 * through two of its records; and here, an operator return only of money whose amount is known, with an attempt id,
 * that goes `returning` → `returned` | held, nothing else, and is never undone once returned.
 */
export class OperatorReturns1764401100000 implements MigrationInterface {
  name = 'OperatorReturns1764401100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.received_funds
        ADD COLUMN return_id text,
        ADD COLUMN return_attempts integer NOT NULL DEFAULT 0
          CONSTRAINT received_funds_return_attempts_counted CHECK (return_attempts >= 0),
        ADD COLUMN return_reference text,
        ADD COLUMN return_failure_reason text,
        DROP CONSTRAINT received_funds_returned_by_known,
        ADD CONSTRAINT received_funds_returned_by_known CHECK (
          returned_by IS NULL OR returned_by IN ('manual', 'operator') OR returned_by LIKE 'ref\\_%'),
        DROP CONSTRAINT received_funds_returned_dated,
        ADD CONSTRAINT received_funds_returned_dated CHECK (
          (returned_by IS NULL AND returned_at IS NULL)
          OR (returned_by = 'manual' AND returned_at IS NOT NULL)
          OR returned_by = 'operator' OR returned_by LIKE 'ref\\_%'),
        ADD CONSTRAINT received_funds_operator_return_known CHECK (
          returned_by IS DISTINCT FROM 'operator'
          OR (return_id IS NOT NULL AND kind <> 'unreadable'
              AND (returned_at IS NULL) = (return_reference IS NULL))),
        ADD CONSTRAINT received_funds_return_reference_operator CHECK (
          return_reference IS NULL OR returned_by = 'operator')`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX received_funds_return_id ON ${s}.received_funds (return_id) WHERE return_id IS NOT NULL`,
    );
    await this.returnOnce(queryRunner, OPERATOR_STEPS);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await this.returnOnce(queryRunner, '');
    await queryRunner.query(`DROP INDEX ${s}.received_funds_return_id`);
    await queryRunner.query(`
      ALTER TABLE ${s}.received_funds
        DROP CONSTRAINT received_funds_return_reference_operator,
        DROP CONSTRAINT received_funds_operator_return_known,
        DROP CONSTRAINT received_funds_returned_dated,
        ADD CONSTRAINT received_funds_returned_dated CHECK (
          (returned_by IS NULL AND returned_at IS NULL)
          OR (returned_by = 'manual' AND returned_at IS NOT NULL)
          OR returned_by LIKE 'ref\\_%'),
        DROP CONSTRAINT received_funds_returned_by_known,
        ADD CONSTRAINT received_funds_returned_by_known CHECK (
          returned_by IS NULL OR returned_by = 'manual' OR returned_by LIKE 'ref\\_%'),
        DROP COLUMN return_failure_reason,
        DROP COLUMN return_reference,
        DROP COLUMN return_attempts,
        DROP COLUMN return_id`);
  }

  /**
   * The trigger that lets money go back once (migration 1732400273000), with `operator` the steps of the operator's
   * return inserted before those of a refund.
   */
  private async returnOnce(queryRunner: QueryRunner, operator: string): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ${s}.refuse_second_return_of_funds() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        refund_status text;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.returned_by IS NOT NULL THEN
            RAISE EXCEPTION 'received_funds: funds are recorded held'
              USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
          END IF;
          RETURN NEW;
        END IF;
        IF OLD.kind = 'unreadable' AND OLD.returned_by IS NULL AND NEW.returned_by IS NULL
           AND NEW.kind <> 'unreadable'
           AND (NEW.id, NEW.funds_id, NEW.payment_id, NEW.rail, NEW.rail_reference, NEW.recorded_at)
               IS NOT DISTINCT FROM (OLD.id, OLD.funds_id, OLD.payment_id, OLD.rail, OLD.rail_reference,
                                     OLD.recorded_at) THEN
          RETURN NEW;
        END IF;
        IF (NEW.id, NEW.funds_id, NEW.payment_id, NEW.kind, NEW.rail, NEW.rail_reference, NEW.amount_centavos,
            NEW.amount_base_units, NEW.recorded_at)
           IS DISTINCT FROM (OLD.id, OLD.funds_id, OLD.payment_id, OLD.kind, OLD.rail, OLD.rail_reference,
                             OLD.amount_centavos, OLD.amount_base_units, OLD.recorded_at) THEN
          RAISE EXCEPTION 'received_funds: what was received cannot change'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF (NEW.returned_by, NEW.returned_at) IS NOT DISTINCT FROM (OLD.returned_by, OLD.returned_at) THEN
          RETURN NEW;
        END IF;
        IF OLD.returned_by = 'manual' THEN
          RAISE EXCEPTION 'received_funds: % was returned by hand already', OLD.funds_id
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        ${operator}
        IF OLD.returned_by IS NULL THEN
          IF NEW.returned_by = 'manual' THEN
            RETURN NEW;
          END IF;
          SELECT status INTO refund_status FROM ${s}.refunds
           WHERE id = NEW.returned_by AND payment_id = NEW.payment_id AND returned_funds_id = NEW.funds_id;
          IF refund_status IS DISTINCT FROM 'pending' OR NEW.returned_at IS NOT NULL THEN
            RAISE EXCEPTION 'received_funds: % is returned only by a pending refund that carries it', NEW.funds_id
              USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
          END IF;
          RETURN NEW;
        END IF;
        SELECT status INTO refund_status FROM ${s}.refunds WHERE id = OLD.returned_by;
        IF NEW.returned_by IS NULL AND NEW.returned_at IS NULL AND refund_status = 'failed' THEN
          RETURN NEW;
        END IF;
        IF NEW.returned_by = OLD.returned_by AND OLD.returned_at IS NULL AND NEW.returned_at IS NOT NULL
           AND refund_status = 'succeeded' THEN
          RETURN NEW;
        END IF;
        RAISE EXCEPTION 'received_funds: % is returned by refund % (%), not again', OLD.funds_id, OLD.returned_by,
          refund_status
          USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
      END $$`);
  }
}

/**
 * The operator's return: from held to returning (a new attempt id), then returned (dated) or held again, once each;
 * returned, never again.
 */
const OPERATOR_STEPS = `
        IF OLD.returned_by IS NULL AND NEW.returned_by = 'operator' THEN
          IF NEW.returned_at IS NOT NULL OR NEW.return_id IS NOT DISTINCT FROM OLD.return_id THEN
            RAISE EXCEPTION 'received_funds: the operator starts returning % as a new attempt', NEW.funds_id
              USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
          END IF;
          RETURN NEW;
        END IF;
        IF OLD.returned_by = 'operator' THEN
          IF OLD.returned_at IS NULL AND NEW.return_id = OLD.return_id
             AND ((NEW.returned_by IS NULL AND NEW.returned_at IS NULL)
                  OR (NEW.returned_by = 'operator' AND NEW.returned_at IS NOT NULL)) THEN
            RETURN NEW;
          END IF;
          RAISE EXCEPTION 'received_funds: % is returned by the operator, not again', OLD.funds_id
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;`;
