import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Reconciliation of the books with the money (docs/operating.md#reconciliation-of-the-books).
 *
 * - A journal carries the rail's id of the movement it posts when the posting knows it (`rail_reference`: a PIX
 *   payment's txid, a PIX refund's devolução id, a payout's endToEndId), so a run can match the PSP's list item by item.
 * - A token entry carries the token quantity it moves in base units (`quantity_base_units`), next to its BRL cost, so the
 *   books can be compared with the wallet's balance on chain; the same sign as its amount.
 * - Each run and the items of its report (differences, and movements still pending within the grace window), written
 *   once and never changed; a scheduled run claims its slot, so replicas run each slot once.
 */
export class Reconciliation1764400500000 implements MigrationInterface {
  name = 'Reconciliation1764400500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.journals ADD COLUMN rail_reference text`);
    await queryRunner.query(
      `CREATE INDEX journals_rail_reference ON ${s}.journals (rail_reference) WHERE rail_reference IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX journals_created_at ON ${s}.journals (created_at)`);
    await queryRunner.query(`
      ALTER TABLE ${s}.entries ADD COLUMN quantity_base_units numeric,
        ADD CONSTRAINT entries_quantity_of_tokens CHECK (
          quantity_base_units IS NULL OR (
            account LIKE 'tokens:%' AND quantity_base_units = trunc(quantity_base_units)
            AND quantity_base_units * amount_centavos >= 0
          )
        )`);

    await queryRunner.query(`
      CREATE TABLE ${s}.reconciliations (
        id text PRIMARY KEY,
        status text NOT NULL CHECK (status IN ('completed', 'failed')),
        trigger text NOT NULL CHECK (trigger IN ('schedule', 'operator')),
        period_from timestamptz NOT NULL,
        period_to timestamptz NOT NULL CHECK (period_to >= period_from),
        started_at timestamptz NOT NULL,
        finished_at timestamptz NOT NULL CHECK (finished_at >= started_at),
        failure_reason text,
        psp_balance_centavos bigint,
        books_cash_psp_centavos bigint,
        psp_received_centavos bigint,
        psp_sent_centavos bigint,
        tokens jsonb NOT NULL DEFAULT '[]',
        difference_count integer NOT NULL CHECK (difference_count >= 0),
        pending_count integer NOT NULL CHECK (pending_count >= 0),
        CONSTRAINT reconciliations_failure_explained CHECK ((status = 'failed') = (failure_reason IS NOT NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX reconciliations_page ON ${s}.reconciliations (started_at DESC, id DESC)`,
    );
    await queryRunner.query(`
      CREATE TABLE ${s}.reconciliation_items (
        reconciliation_id text NOT NULL REFERENCES ${s}.reconciliations (id),
        position integer NOT NULL,
        pending boolean NOT NULL,
        kind text NOT NULL,
        rail text NOT NULL CHECK (rail IN ('pix', 'solana')),
        reference text,
        rail_centavos bigint,
        books_centavos bigint,
        rail_base_units numeric,
        books_base_units numeric,
        occurred_at timestamptz,
        detail text NOT NULL,
        PRIMARY KEY (reconciliation_id, position)
      )`);
    // A report is what the run found: never changed afterwards (a correction is a journal, a new run its check).
    for (const table of ['reconciliations', 'reconciliation_items'])
      await queryRunner.query(`
        CREATE TRIGGER ${table}_immutable BEFORE UPDATE OR DELETE ON ${s}.${table}
        FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_book_change()`);
    await queryRunner.query(`
      CREATE TABLE ${s}.reconciliation_slots (
        slot bigint PRIMARY KEY,
        claimed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TABLE ${s}.reconciliation_slots`);
    await queryRunner.query(`DROP TABLE ${s}.reconciliation_items`);
    await queryRunner.query(`DROP TABLE ${s}.reconciliations`);
    await queryRunner.query(
      `ALTER TABLE ${s}.entries DROP CONSTRAINT entries_quantity_of_tokens, DROP COLUMN quantity_base_units`,
    );
    await queryRunner.query(`DROP INDEX ${s}.journals_created_at`);
    await queryRunner.query(`DROP INDEX ${s}.journals_rail_reference`);
    await queryRunner.query(`ALTER TABLE ${s}.journals DROP COLUMN rail_reference`);
  }
}
