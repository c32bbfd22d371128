import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Payouts (docs/money-model.md#payouts): each business's payout account (where its money may go, set by the
 * operator) and its payouts. The database holds the rules: a key of its type's form, a payout of at least R$ 1,00
 * that keeps the account it was requested with, and a status that moves only from `pending` to `paid` or `failed`,
 * once; nothing of a payout but its outcome ever changes, and none is deleted.
 */
export class Payouts1764400200000 implements MigrationInterface {
  name = 'Payouts1764400200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    const keyForms = `
      (pix_key_type = 'cpf' AND pix_key ~ '^[0-9]{11}$')
      OR (pix_key_type = 'cnpj' AND pix_key ~ '^[0-9]{14}$')
      OR (pix_key_type = 'email' AND pix_key ~ '^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}$')
      OR (pix_key_type = 'phone' AND pix_key ~ '^\\+55[0-9]{10,11}$')
      OR (pix_key_type = 'evp' AND pix_key ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')`;
    const destination = `
        pix_key text NOT NULL CHECK (length(pix_key) <= 77),
        pix_key_type text NOT NULL CHECK (pix_key_type IN ('cpf', 'cnpj', 'email', 'phone', 'evp')),
        holder_document text NOT NULL CHECK (holder_document ~ '^([0-9]{11}|[0-9]{14})$'),
        CONSTRAINT %_key_form CHECK (${keyForms}),
        CONSTRAINT %_document_key CHECK (pix_key_type NOT IN ('cpf', 'cnpj') OR pix_key = holder_document)`;
    await queryRunner.query(`
      CREATE TABLE ${s}.payout_accounts (
        business_id text PRIMARY KEY,
        ${destination.replaceAll('%', 'payout_accounts')},
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE ${s}.payouts (
        id text PRIMARY KEY CHECK (id ~ '^po_[A-Za-z0-9_-]{24,64}$'),
        business_id text NOT NULL,
        amount_centavos bigint NOT NULL CHECK (amount_centavos >= 100),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'failed')),
        ${destination.replaceAll('%', 'payouts')},
        end_to_end_id text,
        failure_reason text,
        request_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz,
        CONSTRAINT payouts_one_per_request UNIQUE (business_id, request_id),
        CONSTRAINT payouts_settled_when_final CHECK ((status = 'pending') = (settled_at IS NULL)),
        CONSTRAINT payouts_end_to_end_id_when_paid CHECK (status = 'paid' OR end_to_end_id IS NULL),
        CONSTRAINT payouts_failure_reason_when_failed CHECK (status = 'failed' OR failure_reason IS NULL)
      )`);
    await queryRunner.query(
      `CREATE INDEX payouts_page ON ${s}.payouts (business_id, created_at DESC, id DESC)`,
    );

    // pending -> paid | failed, once; everything else a payout holds is written when it is requested.
    await queryRunner.query(`
      CREATE FUNCTION ${s}.check_payout_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          RAISE EXCEPTION 'payout %: payouts are never deleted', OLD.id USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF OLD.status <> 'pending' OR NEW.status NOT IN ('paid', 'failed') THEN
          RAISE EXCEPTION 'payout %: % -> % refused (only pending -> paid or failed)', OLD.id, OLD.status, NEW.status
            USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF (NEW.id, NEW.business_id, NEW.amount_centavos, NEW.pix_key, NEW.pix_key_type, NEW.holder_document,
            NEW.request_id, NEW.created_at)
           IS DISTINCT FROM
           (OLD.id, OLD.business_id, OLD.amount_centavos, OLD.pix_key, OLD.pix_key_type, OLD.holder_document,
            OLD.request_id, OLD.created_at) THEN
          RAISE EXCEPTION 'payout %: only its outcome may change', OLD.id USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER payouts_state_machine BEFORE UPDATE OR DELETE ON ${s}.payouts
      FOR EACH ROW EXECUTE FUNCTION ${s}.check_payout_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.payouts`);
    await queryRunner.query(`DROP FUNCTION ${s}.check_payout_change()`);
    await queryRunner.query(`DROP TABLE ${s}.payout_accounts`);
  }
}
