import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Each settlement keeps what is left of its payment's net (`remaining_centavos`): a refund of a payment not settled yet
 * takes from its own remainder, and settlement moves the remainder, so one payment's settlement never makes another's
 * money available early; while unsettled, the remainders of a business sum to its `pending`.
 *
 * And a journal is whole when it commits: at least two entries (a journal with none would use up its cause's key with
 * nothing posted), all written in the transaction that made the journal (entries are never added to it later).
 */
export class SettlementRemainders1764400100000 implements MigrationInterface {
  name = 'SettlementRemainders1764400100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`ALTER TABLE ${s}.settlements ADD COLUMN remaining_centavos bigint`);
    await queryRunner.query(
      `UPDATE ${s}.settlements SET remaining_centavos = CASE WHEN settled_at IS NULL THEN net_centavos ELSE 0 END`,
    );
    await queryRunner.query(`
      ALTER TABLE ${s}.settlements
        ALTER COLUMN remaining_centavos SET NOT NULL,
        ADD CONSTRAINT settlements_remaining_within_net
          CHECK (remaining_centavos >= 0 AND remaining_centavos <= net_centavos),
        ADD CONSTRAINT settlements_settled_leave_nothing CHECK (settled_at IS NULL OR remaining_centavos = 0)`);

    await queryRunner.query(
      `ALTER TABLE ${s}.journals ADD COLUMN created_in_transaction bigint NOT NULL DEFAULT txid_current()`,
    );
    await queryRunner.query(`
      CREATE FUNCTION ${s}.check_entry_in_journal_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM ${s}.journals
                        WHERE id = NEW.journal_id AND created_in_transaction = txid_current()) THEN
          RAISE EXCEPTION 'journal % is closed: entries are written with their journal only', NEW.journal_id
            USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER entries_with_their_journal BEFORE INSERT ON ${s}.entries
      FOR EACH ROW EXECUTE FUNCTION ${s}.check_entry_in_journal_transaction()`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.check_journal_has_entries() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE lines integer;
      BEGIN
        SELECT count(*) INTO lines FROM ${s}.entries WHERE journal_id = NEW.id;
        IF lines < 2 THEN
          RAISE EXCEPTION 'journal % has % entries: a journal moves money between at least two accounts', NEW.id, lines
            USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER journals_have_entries AFTER INSERT ON ${s}.journals
      DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION ${s}.check_journal_has_entries()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER journals_have_entries ON ${s}.journals`);
    await queryRunner.query(`DROP FUNCTION ${s}.check_journal_has_entries()`);
    await queryRunner.query(`DROP TRIGGER entries_with_their_journal ON ${s}.entries`);
    await queryRunner.query(`DROP FUNCTION ${s}.check_entry_in_journal_transaction()`);
    await queryRunner.query(`ALTER TABLE ${s}.journals DROP COLUMN created_in_transaction`);
    await queryRunner.query(`
      ALTER TABLE ${s}.settlements
        DROP CONSTRAINT settlements_settled_leave_nothing,
        DROP CONSTRAINT settlements_remaining_within_net,
        DROP COLUMN remaining_centavos`);
  }
}
