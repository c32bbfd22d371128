import type { MigrationInterface, QueryRunner } from 'typeorm';
import { schemaOf } from '@gateway/persistence';

/**
 * Tokens that arrived outside their payment's window are valued at the quote of their arrival, never at the quote the
 * payment locked when it was created: the record keeps that quote beside the value it gave (`quote_token`,
 * `quote_token_per_brl` as an exact ratio, `quoted_at`), all three or none, and only with a value. The existing
 * trigger already refuses any change of a value told the books; this one refuses any change of its quote.
 */
export class ReceivedFundsArrivalQuote1764401000000 implements MigrationInterface {
  name = 'ReceivedFundsArrivalQuote1764401000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`
      ALTER TABLE ${s}.received_funds
        ADD COLUMN quote_token text,
        ADD COLUMN quote_token_per_brl text,
        ADD COLUMN quoted_at timestamptz,
        ADD CONSTRAINT received_funds_quote_whole CHECK (
          (quote_token IS NULL) = (quote_token_per_brl IS NULL) AND (quote_token IS NULL) = (quoted_at IS NULL)),
        ADD CONSTRAINT received_funds_quote_valued CHECK (quote_token IS NULL OR valued_centavos IS NOT NULL),
        ADD CONSTRAINT received_funds_quote_form CHECK (quote_token_per_brl ~ '^[1-9][0-9]*/[1-9][0-9]*$')`);
    await queryRunner.query(`
      CREATE FUNCTION ${s}.refuse_quote_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.quote_token IS NOT NULL
           AND (NEW.quote_token, NEW.quote_token_per_brl, NEW.quoted_at)
               IS DISTINCT FROM (OLD.quote_token, OLD.quote_token_per_brl, OLD.quoted_at) THEN
          RAISE EXCEPTION 'received_funds: the quote that valued % is kept as it was', OLD.funds_id
            USING ERRCODE = 'check_violation', CONSTRAINT = TG_NAME;
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER received_funds_quote_once BEFORE UPDATE ON ${s}.received_funds
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_quote_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const s = schemaOf(queryRunner);
    await queryRunner.query(`DROP TRIGGER received_funds_quote_once ON ${s}.received_funds`);
    await queryRunner.query(`DROP FUNCTION ${s}.refuse_quote_change()`);
    await queryRunner.query(`
      ALTER TABLE ${s}.received_funds
        DROP COLUMN quote_token, DROP COLUMN quote_token_per_brl, DROP COLUMN quoted_at`);
  }
}
