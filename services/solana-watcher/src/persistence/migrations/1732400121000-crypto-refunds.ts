import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropFinalRowGuard, guardFinalRows, schemaOf } from '@gateway/persistence';

/**
 * Refunds the watcher carries out on chain. What a refund pays (mint, recipients, amounts) is decided once, when it is
 * recorded. Its transaction's signature, wire bytes and blockhash validity are stored before it is sent, so a
 * redelivery checks that signature (and sends those same bytes again) instead of paying twice; only a transaction whose
 * blockhash expired without it landing is replaced. The database keeps the state machine whatever code path writes:
 * recorded `pending` (or `failed` when it cannot be built), then `submitted` (possibly re-signed), then `succeeded` or
 * `failed`, which are frozen.
 */
export class CryptoRefunds1732400121000 implements MigrationInterface {
  name = 'CryptoRefunds1732400121000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      CREATE TABLE ${s}.crypto_refunds (
        refund_id text PRIMARY KEY,
        payment_id text NOT NULL,
        reason text,
        status text NOT NULL CHECK (status IN ('pending', 'submitted', 'succeeded', 'failed')),
        mint text,
        decimals integer,
        amount_base_units numeric(40, 0) CHECK (amount_base_units > 0),
        recipients jsonb NOT NULL DEFAULT '[]',
        signature text,
        signed_transaction text,
        last_valid_block_height bigint,
        failure_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT crypto_refunds_planned CHECK (
          status = 'failed' OR (mint IS NOT NULL AND decimals IS NOT NULL AND amount_base_units IS NOT NULL
                                AND jsonb_array_length(recipients) > 0)),
        CONSTRAINT crypto_refunds_signed CHECK (
          status NOT IN ('submitted', 'succeeded')
          OR (signature IS NOT NULL AND signed_transaction IS NOT NULL AND last_valid_block_height IS NOT NULL)),
        CONSTRAINT crypto_refunds_failure_explained CHECK (status <> 'failed' OR failure_reason IS NOT NULL)
      )`);
    await queryRunner.query(`CREATE INDEX crypto_refunds_by_payment ON ${s}.crypto_refunds (payment_id)`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_crypto_refund_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF NEW.status NOT IN ('pending', 'failed') THEN
            RAISE EXCEPTION 'crypto_refunds: a refund is recorded pending or failed, not %', NEW.status
              USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
          END IF;
          RETURN NEW;
        END IF;
        IF NOT ((OLD.status = 'pending' AND NEW.status IN ('submitted', 'failed'))
                OR (OLD.status = 'submitted' AND NEW.status IN ('submitted', 'succeeded', 'failed'))) THEN
          RAISE EXCEPTION 'crypto_refunds: % cannot become %', OLD.status, NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        IF (NEW.refund_id, NEW.payment_id, NEW.reason, NEW.mint, NEW.decimals, NEW.amount_base_units, NEW.recipients,
            NEW.created_at)
           IS DISTINCT FROM (OLD.refund_id, OLD.payment_id, OLD.reason, OLD.mint, OLD.decimals, OLD.amount_base_units,
                             OLD.recipients, OLD.created_at) THEN
          RAISE EXCEPTION 'crypto_refunds: what a refund pays is decided once'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        -- A submitted refund ends with the transaction it has on record, never with another one.
        IF OLD.status = 'submitted' AND NEW.status <> 'submitted' AND NEW.signature IS DISTINCT FROM OLD.signature THEN
          RAISE EXCEPTION 'crypto_refunds: a refund settles by the transaction on record'
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER crypto_refunds_moves BEFORE INSERT OR UPDATE ON ${s}.crypto_refunds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_crypto_refund_move()`);
    await guardFinalRows(queryRunner, {
      table: 'crypto_refunds',
      finalStatuses: ['succeeded', 'failed'],
      changeableColumns: [],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await dropFinalRowGuard(queryRunner, 'crypto_refunds');
    await queryRunner.query(`DROP TABLE ${s}.crypto_refunds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_crypto_refund_move()`);
  }
}
