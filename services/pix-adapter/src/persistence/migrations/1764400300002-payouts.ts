import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropFinalRowGuard, guardFinalRows, schemaOf } from '@gateway/persistence';

/**
 * Payouts the ledger asked for (`payout.requested.v1`), each carried out as one Pix sent from the platform's account
 * under an idEnvio derived from the payout (`payouts`). The database keeps their state machine, so no code path can
 * settle one twice or bring it back: a payout starts `requested`, may become `processing` (the PSP holds the send),
 * and ends `paid` (with the PIX's endToEndId) or `failed` (with a reason), frozen. `attempts`, `next_attempt_at` and
 * `held_reason` say when the adapter tries again after a failure that may pass, and why it waits; `claimed_until` is
 * the lease of whoever is trying.
 */
export class Payouts1764400300002 implements MigrationInterface {
  name = 'Payouts1764400300002';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.payouts (
        payout_id text PRIMARY KEY,
        business_id text NOT NULL,
        id_envio text NOT NULL UNIQUE CHECK (id_envio ~ '^[a-zA-Z0-9]{1,35}$'),
        amount_centavos bigint NOT NULL CHECK (amount_centavos > 0),
        pix_key text NOT NULL CHECK (char_length(pix_key) BETWEEN 1 AND 77),
        pix_key_type text NOT NULL CHECK (pix_key_type IN ('cpf', 'cnpj', 'email', 'phone', 'evp')),
        holder_document text NOT NULL CHECK (holder_document ~ '^(\\d{11}|\\d{14})$'),
        status text NOT NULL CHECK (status IN ('requested', 'processing', 'paid', 'failed')),
        end_to_end_id text,
        failure_reason text,
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        held_reason text,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        correlation_id text NOT NULL,
        requested_at timestamptz NOT NULL,
        settled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT payouts_paid_has_pix CHECK (status <> 'paid' OR end_to_end_id IS NOT NULL),
        CONSTRAINT payouts_failure_explained CHECK ((status = 'failed') = (failure_reason IS NOT NULL)),
        CONSTRAINT payouts_settled_when_final CHECK ((status IN ('paid', 'failed')) = (settled_at IS NOT NULL))
      )`);
    // What the payout poll scans.
    await queryRunner.query(`
      CREATE INDEX payouts_open ON ${s}.payouts (next_attempt_at) WHERE status IN ('requested', 'processing')`);
    await guardFinalRows(queryRunner, {
      table: 'payouts',
      finalStatuses: ['paid', 'failed'],
      changeableColumns: [],
    });
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_payout_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.status <> 'requested' THEN
            RAISE EXCEPTION 'payouts: a payout starts requested, not %', NEW.status
              USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
          END IF;
        ELSIF NEW.status <> OLD.status AND NOT (
            (OLD.status = 'requested' AND NEW.status IN ('processing', 'paid', 'failed'))
            OR (OLD.status = 'processing' AND NEW.status IN ('paid', 'failed'))) THEN
          RAISE EXCEPTION 'payouts: a payout cannot move from % to %', OLD.status, NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER payouts_move_forward BEFORE INSERT OR UPDATE ON ${s}.payouts
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_payout_move()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await dropFinalRowGuard(queryRunner, 'payouts');
    await queryRunner.query(`DROP TABLE ${s}.payouts`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_payout_move()`);
  }
}
