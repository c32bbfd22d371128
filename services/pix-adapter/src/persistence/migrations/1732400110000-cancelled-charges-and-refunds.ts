import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropFinalRowGuard, guardFinalRows, schemaOf } from '@gateway/persistence';

const CHARGE_STATUSES = ['active', 'paid', 'expired', 'failed'];
const CHARGE_FINAL_STATUSES = ['paid', 'expired', 'failed'];
const CHARGE_CHANGEABLE = ['updated_at', 'claimed_until'];
const quoted = (values: string[]) => values.map((value) => `'${value}'`).join(', ');

/**
 * A charge whose payment was cancelled ends `cancelled` (its cob removed at the PSP), final like the others. Refunds of
 * PIX are carried out here as devoluções (`pix_refunds`), one per refund: the database keeps their state machine, so
 * no code path can settle one twice or bring it back. A refund starts `requested` (or `failed`, when its payment has
 * no PIX to return), may become `processing`, and ends `succeeded` or `failed`, frozen.
 */
export class CancelledChargesAndRefunds1732400110000 implements MigrationInterface {
  name = 'CancelledChargesAndRefunds1732400110000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.charges
        DROP CONSTRAINT charges_status_check,
        ADD CONSTRAINT charges_status_check CHECK (status IN (${quoted([...CHARGE_STATUSES, 'cancelled'])}))`);
    await guardFinalRows(queryRunner, {
      table: 'charges',
      finalStatuses: [...CHARGE_FINAL_STATUSES, 'cancelled'],
      changeableColumns: CHARGE_CHANGEABLE,
    });

    await queryRunner.query(`
      CREATE TABLE ${s}.pix_refunds (
        refund_id text PRIMARY KEY,
        payment_id text NOT NULL,
        end_to_end_id text,
        devolucao_id text NOT NULL UNIQUE CHECK (devolucao_id ~ '^[a-zA-Z0-9]{1,35}$'),
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        descricao text CHECK (char_length(descricao) <= 140),
        status text NOT NULL CHECK (status IN ('requested', 'processing', 'succeeded', 'failed')),
        failure_reason text,
        correlation_id text NOT NULL,
        claimed_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pix_refunds_pix_known CHECK (end_to_end_id IS NOT NULL OR status = 'failed'),
        CONSTRAINT pix_refunds_failure_explained CHECK ((status = 'failed') = (failure_reason IS NOT NULL))
      )`);
    // What the poll for overdue devoluções scans.
    await queryRunner.query(`
      CREATE INDEX pix_refunds_open ON ${s}.pix_refunds (updated_at) WHERE status IN ('requested', 'processing')`);
    await queryRunner.query(`CREATE INDEX pix_refunds_payment ON ${s}.pix_refunds (payment_id)`);
    await guardFinalRows(queryRunner, {
      table: 'pix_refunds',
      finalStatuses: ['succeeded', 'failed'],
      changeableColumns: [],
    });
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_pix_refund_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.status NOT IN ('requested', 'failed') THEN
            RAISE EXCEPTION 'pix_refunds: a refund starts requested (or failed), not %', NEW.status
              USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
          END IF;
        ELSIF NEW.status <> OLD.status AND NOT (
            (OLD.status = 'requested' AND NEW.status IN ('processing', 'succeeded', 'failed'))
            OR (OLD.status = 'processing' AND NEW.status IN ('succeeded', 'failed'))) THEN
          RAISE EXCEPTION 'pix_refunds: a refund cannot move from % to %', OLD.status, NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER pix_refunds_moves_forward BEFORE INSERT OR UPDATE ON ${s}.pix_refunds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_pix_refund_move()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await dropFinalRowGuard(queryRunner, 'pix_refunds');
    await queryRunner.query(`DROP TABLE ${s}.pix_refunds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_pix_refund_move()`);
    await guardFinalRows(queryRunner, {
      table: 'charges',
      finalStatuses: CHARGE_FINAL_STATUSES,
      changeableColumns: CHARGE_CHANGEABLE,
    });
    await queryRunner.query(`
      ALTER TABLE ${s}.charges
        DROP CONSTRAINT charges_status_check,
        ADD CONSTRAINT charges_status_check CHECK (status IN (${quoted(CHARGE_STATUSES)}))`);
  }
}
