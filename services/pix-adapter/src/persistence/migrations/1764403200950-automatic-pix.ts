import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Pix Automático (docs/adr/0048-due-date-charges-and-subscriptions.md, sections 2 to 4): a subscription's recurrence at
 * the PSP (`/rec`), one per subscription, and its cycles (`/cobr`), each kept as a charge of its cycle's payment.
 *
 * A recurrence is first recorded `opening` (no idRec yet, claimed by the delivery that asks the PSP, so a retried
 * command never asks for a second one), then holds the status the PSP last stated; the database holds API Pix's moves
 * (CRIADA -> APROVADA | REJEITADA | EXPIRADA | CANCELADA, APROVADA -> CANCELADA | EXPIRADA) and freezes the final ones.
 */
export class AutomaticPix1764403200950 implements MigrationInterface {
  name = 'AutomaticPix1764403200950';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.recurrences (
        subscription_id text PRIMARY KEY,
        business_id text NOT NULL,
        journey text NOT NULL CHECK (journey IN ('push', 'qr', 'qr_with_first_payment')),
        retry_policy text NOT NULL CHECK (retry_policy IN ('none', 'three_in_seven_days')),
        id_rec text UNIQUE CHECK (id_rec ~ '^[a-zA-Z0-9]{29}$'),
        psp_status text CHECK (psp_status IN ('CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA')),
        id_solic_rec text CHECK (id_solic_rec ~ '^[a-zA-Z0-9]{29}$'),
        loc_id bigint,
        first_payment_id text,
        first_payment_txid text,
        authorization_shown jsonb CHECK (authorization_shown IS NULL OR jsonb_typeof(authorization_shown) = 'object'),
        authorization_expires_at timestamptz NOT NULL,
        cancelled_by text CHECK (cancelled_by IN ('merchant', 'payer', 'psp')),
        psp_account_id text,
        claimed_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT recurrences_opened_has_status CHECK ((id_rec IS NULL) = (psp_status IS NULL)),
        CONSTRAINT recurrences_solicrec_is_push CHECK (id_solic_rec IS NULL OR journey = 'push'),
        CONSTRAINT recurrences_loc_is_qr CHECK (loc_id IS NULL OR journey <> 'push'),
        CONSTRAINT recurrences_first_payment_is_journey_3
          CHECK ((first_payment_id IS NOT NULL) = (journey = 'qr_with_first_payment')),
        CONSTRAINT recurrences_cancelled_by_is_cancelled
          CHECK ((cancelled_by IS NOT NULL) = (psp_status IS NOT DISTINCT FROM 'CANCELADA'))
      )`);
    // The pending ones are polled (a lost callback), oldest check first.
    await queryRunner.query(
      `CREATE INDEX recurrences_pending ON ${s}.recurrences (updated_at) WHERE psp_status IN ('CRIADA', 'APROVADA')`,
    );
    await queryRunner.query(`
      CREATE FUNCTION ${s}.recurrence_status_moves() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.id_rec IS NOT NULL AND NEW.id_rec IS DISTINCT FROM OLD.id_rec THEN
          RAISE EXCEPTION 'recurrence %: idRec is set once', OLD.subscription_id;
        END IF;
        IF NEW.psp_status IS DISTINCT FROM OLD.psp_status AND OLD.psp_status IS NOT NULL AND NOT (
             (OLD.psp_status = 'CRIADA' AND NEW.psp_status IN ('APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'))
          OR (OLD.psp_status = 'APROVADA' AND NEW.psp_status IN ('CANCELADA', 'EXPIRADA'))) THEN
          RAISE EXCEPTION 'recurrence %: % -> % is not a move of API Pix', OLD.subscription_id, OLD.psp_status,
            NEW.psp_status;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER recurrences_status_moves BEFORE UPDATE ON ${s}.recurrences
        FOR EACH ROW EXECUTE FUNCTION ${s}.recurrence_status_moves()`);
    // A cycle is a charge of its payment: a cobr, with its subscription and number, and how many failed attempts were
    // reported (pix.cycle.attempt-failed.v1), each once. No upper bound: besides the scheduled attempt and our three
    // retries, API Pix lists attempts the payer's bank makes on its own (`RIFL`), so a cycle may fail more than four.
    await queryRunner.query(`
      ALTER TABLE ${s}.charges
        ADD COLUMN kind text NOT NULL DEFAULT 'cob' CHECK (kind IN ('cob', 'cobv', 'cobr')),
        ADD COLUMN subscription_id text REFERENCES ${s}.recurrences (subscription_id),
        ADD COLUMN cycle integer CHECK (cycle >= 1),
        ADD COLUMN attempts_reported integer NOT NULL DEFAULT 0 CHECK (attempts_reported >= 0)`);
    await queryRunner.query(`UPDATE ${s}.charges SET kind = 'cobv' WHERE due IS NOT NULL`);
    await queryRunner.query(`
      ALTER TABLE ${s}.charges
        ADD CONSTRAINT charges_kind_cobv CHECK ((kind = 'cobv') = (due IS NOT NULL)),
        ADD CONSTRAINT charges_kind_cobr
          CHECK ((kind = 'cobr') = (subscription_id IS NOT NULL) AND (subscription_id IS NULL) = (cycle IS NULL)),
        ADD CONSTRAINT charges_one_per_cycle UNIQUE (subscription_id, cycle)`);
    // Reported attempts only grow.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.charge_attempts_grow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.attempts_reported < OLD.attempts_reported OR NEW.kind <> OLD.kind THEN
          RAISE EXCEPTION 'charge %: its kind is fixed and its reported attempts only grow', OLD.txid;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER charges_attempts_grow BEFORE UPDATE ON ${s}.charges
        FOR EACH ROW EXECUTE FUNCTION ${s}.charge_attempts_grow()`);
    await queryRunner.query(
      `CREATE INDEX charges_open_cycles ON ${s}.charges (updated_at) WHERE kind = 'cobr' AND status = 'active'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER charges_attempts_grow ON ${s}.charges`);
    await queryRunner.query(`DROP FUNCTION ${s}.charge_attempts_grow()`);
    await queryRunner.query(
      `ALTER TABLE ${s}.charges DROP COLUMN kind, DROP COLUMN subscription_id, DROP COLUMN cycle,
         DROP COLUMN attempts_reported`,
    );
    await queryRunner.query(`DROP TABLE ${s}.recurrences`);
    await queryRunner.query(`DROP FUNCTION ${s}.recurrence_status_moves()`);
  }
}
